/**
 * What the browser tests look at, shared: axe (no critical, serious or moderate violation), page
 * errors and CSP violations, overflow, whether something is above the composer, what a person
 * can read on the page, touch targets, and colours as rendered.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Locator, Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResults {
  violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[];
}

export async function axeViolations(page: Page, what: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } })
      .axe;
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations
      .filter((v) => v.impact === 'moderate' || v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations.map((v) => `${what}: ${v}`);
}

/** Page errors, console errors and CSP violations (each is also reported to the console). */
export async function watchErrors(page: Page): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    ),
  );
  return errors;
}

/** Nothing wider than the viewport, on the page or in the chat's scroll box. */
export const overflow = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('[aria-label="Messages"]')!;
    return {
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      list: list.scrollWidth - list.clientWidth,
    };
  });

/** Whole, inside the chat's visible part: below the header, above the composer (the fold). */
export async function aboveTheFold(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const list = await page.locator('[aria-label="Messages"]').boundingBox();
  if (!box || !list) return false;
  return box.y >= list.y - 1 && box.y + box.height <= list.y + list.height + 1;
}

/** The text a person can read inside an element: rendered, not in a closed disclosure or hidden. */
export const visibleText = (locator: Locator): Promise<string> =>
  locator.evaluate((root) => {
    const out: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || !parent.checkVisibility({ visibilityProperty: true })) continue;
      const style = getComputedStyle(parent);
      // Visually hidden text is for screen readers: the clip says so.
      if (style.clipPath === 'inset(50%)' || parent.closest('.visually-hidden')) continue;
      out.push(node.textContent ?? '');
    }
    return out.join(' ');
  });

/** Interactive elements smaller than 24 × 24 CSS px (WCAG 2.5.8), inline text links aside. */
export const smallTargets = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, a[href], summary, input, textarea, select, [role="slider"]')]
      .filter((el) => el.checkVisibility())
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && (r.width < 24 || r.height < 24);
      })
      // A link inside running text is exempt (WCAG 2.5.8 "inline").
      .filter((el) => !(el.tagName === 'A' && getComputedStyle(el).display === 'inline'))
      .map((el) => {
        const r = el.getBoundingClientRect();
        return `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" ${Math.round(r.width)}×${Math.round(r.height)}`;
      }),
  );

/** The colour each element draws with (its source colour, as the scheme resolves it), as #rrggbb. */
export const sourceColors = (locator: Locator): Promise<string[]> =>
  locator.evaluateAll((els) =>
    els.map((el) => {
      const probe = document.createElement('span');
      probe.style.color = getComputedStyle(el).getPropertyValue('--source-color').trim();
      el.appendChild(probe);
      const [r, g, b] = (getComputedStyle(probe).color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
      probe.remove();
      return `#${[r, g, b]
        .map((v) =>
          Math.round(v ?? 0)
            .toString(16)
            .padStart(2, '0'),
        )
        .join('')}`;
    }),
  );

/** CIE76 ΔE between two #rrggbb colours (in CIELAB, D65). */
export function deltaE(a: string, b: string): number {
  const lab = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    const x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047;
    const y = 0.2126 * r + 0.7152 * g + 0.0722 * bl;
    const z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883;
    const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
    return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
  };
  const [p, q] = [lab(a), lab(b)];
  return Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!);
}

/**
 * Labels whose rendered lines break inside a word: for every element `selector` finds (visible),
 * each line break of its text as laid out — found from where each character's box starts a new
 * line — must fall at a space, or after a path's separator (/ _ . -), where a long file name may
 * wrap. Returns "label: …|…" for every break that splits a word.
 */
export const brokenWords = (root: Locator, selector: string): Promise<string[]> =>
  root.evaluate((element, sel) => {
    const broken: string[] = [];
    for (const label of element.querySelectorAll<HTMLElement>(sel)) {
      if (!label.checkVisibility()) continue;
      let text = '';
      // Each laid-out character: its place in the label's text, its text node, where its box starts.
      const boxes: { at: number; node: number; top: number; left: number }[] = [];
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
      let nodeIndex = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode(), nodeIndex++) {
        const content = node.textContent ?? '';
        for (let i = 0; i < content.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = [...range.getClientRects()].find((r) => r.width > 0);
          if (box) boxes.push({ at: text.length + i, node: nodeIndex, top: box.top, left: box.left });
        }
        text += content;
      }
      for (let k = 1; k < boxes.length; k++) {
        const [before, after] = [boxes[k - 1]!, boxes[k]!];
        // A new line: the character starts lower and to the left of the one before it.
        if (after.top <= before.top + 2 || after.left >= before.left) continue;
        // Where a line may end: at a space (laid out or collapsed), between two elements' texts
        // (a label and its badge), or after a separator of a path or a phrase.
        const between = text.slice(before.at, after.at + 1);
        if (/\s/.test(between) || before.node !== after.node || /[/_.\-–—:,)]/.test(text[before.at]!)) continue;
        broken.push(`${text.slice(0, after.at)}|${text.slice(after.at)}`);
      }
    }
    return broken;
  }, selector);

/**
 * Resolves once the page has painted two more frames: whatever an event it has already been given
 * (a wheel, a history step) changes is on screen by then. A condition on the page, not a pause
 * that a loaded machine can outrun — for proving that something did *not* happen.
 */
export const framesPainted = (page: Page): Promise<void> =>
  page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
