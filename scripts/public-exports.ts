/**
 * npm run public-exports -- RAW_DIR: turns the public OpenCode session exports listed in
 * test/fixtures/public/sources.json into the test fixtures beside it.
 *
 * Exports from permissively licensed repositories are kept as found. The others — published on
 * GitHub without a licence, or under one whose terms would bind this project — are kept as a
 * *skeleton*: the session's structure, ids, roles, models, tool names, times and every token
 * count exactly as the provider reported them, with the authors' words replaced by filler of the
 * same shape (each run of letters by an English word of the same length, each CJK character by
 * another, digits, whitespace and punctuation kept), so that estimators see text of the same
 * kind and length while nothing the authors wrote is redistributed. Opaque provider data
 * (encrypted reasoning, signatures) is replaced by filler of the same length.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/node/project';

export interface PublicSource {
  file: string;
  repo: string;
  path: string;
  commit: string;
  url: string;
  license: string;
  /** `verbatim`: as found; `skeleton`: the words replaced (see above). */
  kept: 'verbatim' | 'skeleton';
  family: string;
  model: string;
  opencode: string;
  notes: string;
}

const DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'public');

/** Keys whose string values are structure, not authored text. */
const STRUCTURE = new Set([
  'id',
  'sessionID',
  'messageID',
  'parentID',
  'parentSessionId',
  'sessionId',
  'role',
  'type',
  'tool',
  'callID',
  'providerID',
  'modelID',
  'agent',
  'mode',
  'mime',
  'status',
  'finish',
  'reason',
  'version',
  'variant',
  'itemId',
  'name',
  'projectID',
]);

const WORDS =
  `a an at be by do go he if in is it me my no of on or so to up us we act add age ago aid aim air all and any
arm art ask bad bag bar bed big bit box boy bus but buy can car cat cut day did dog dry due ear eat end eye far few fit fix
fly for fun get got gun had has her him his hot how ice its job key kid law lay led leg let lie lot low man map may mix new
not now off oil old one our out own pay per put ran red run sat saw say sea see set she sit six sky son sun tax tea ten the
tie too top try two use via war was way who why win yes yet you able also area away back bank base best body book both call
came card care case city code cold come cost data date days deal does done door down draw each east easy else even ever
face fact fall farm fast fear feel file fill find fine fire firm five flow food foot form four free from full game gave
give goes gold gone good grow half hall hand hard have head hear heat held help here high hold home hope hour idea into
item join just keep kind knew know land last late lead left less life like line list live long look lose loss lost love
made main make many mark mean meet mind miss more most move much must name near need news next nice none note once only
open over page part pass past path plan play plus post pull push rate read real rest rich ride rise risk road rock role room
rule safe said sale same save seat seem seen sell send ship shop show side sign size skin some soon sort stay step stop
such sure take talk task team tell term test text than that them then they thin this thus time told took tree true turn type
unit upon used user very view vote wait walk wall want warm wash week well went were west what when whom wide will wind
wish with word work year your about above after again along among apply based begin being below black board break bring
build carry cause check class clear close count cover cross early earth enjoy enter event every exist field fight final
first floor focus force found front given great green group guess happy heart heavy horse hotel house human image issue
large later learn least leave legal level light limit local major maybe media metal might model money month moral mouth
movie music never night north notice occur offer often order other owner paper party peace phone piece place plant point
power press price print prove quite radio range reach ready refer right river round route scale scene score sense serve
seven shall share short since skill small smile sound south space speak spend staff stage stand start state still stock
store story study style table teach thank their theme there these thing think third those three throw today total touch
tough tower trade train treat trial truth under union until usual value video visit voice watch water where which while
white whole whose woman world worry would write wrong young action amount answer appear around author better beyond budget
center change charge choice church client common course create credit danger degree design detail doctor during effect
effort energy engine enough entire expect expert family figure finger finish follow forest friend future garden growth
health hearing income inside island itself leader letter listen little manage market matter member memory method middle
minute moment mother murder nature nearly number object office option output parent people period person phrase player
policy police public reason record reduce region remain remove report result return review school screen second secret
season series server should signal simple single sister social source speech spring square status strong studio summer
supply system theory thread though toward travel twenty unless update useful victim volume weapon window winter within
without `
    .split(/\s+/)
    .filter(Boolean);
const BY_LENGTH = new Map<number, string[]>();
for (const word of WORDS) BY_LENGTH.set(word.length, [...(BY_LENGTH.get(word.length) ?? []), word]);
const CJK =
  '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质信十手';

/** Filler of the same shape as `text`: a deterministic function of it. */
export function filler(text: string): string {
  let seed = createHash('sha1').update(text).digest().readUInt32BE(0);
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % n;
  };
  return (
    text
      .replace(/[A-Za-z]+/g, (run) => wordOfLength(run, next))
      .replace(/[\u3400-\u9fff\uf900-\ufaff]/g, () => CJK[next(CJK.length)]!)
      // eslint-disable-next-line no-control-regex -- every character outside ASCII and CJK ranges
      .replace(/[^\x00-\x7f\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef\u2000-\u206f]/g, 'e')
  );
}

function wordOfLength(run: string, next: (n: number) => number): string {
  let out = '';
  while (out.length < run.length) {
    const left = run.length - out.length;
    const choices = BY_LENGTH.get(Math.min(left, 8)) ?? BY_LENGTH.get(3)!;
    out += choices[next(choices.length)]!;
  }
  out = out.slice(0, run.length);
  // The case pattern of the run: Capitalised, UPPER or lower.
  if (run === run.toUpperCase() && run.length > 1) return out.toUpperCase();
  if (run[0] === run[0]!.toUpperCase()) return out[0]!.toUpperCase() + out.slice(1);
  return out;
}

/** The skeleton of a JSON value: structure kept, authored strings and opaque data replaced. */
export function skeleton(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (STRUCTURE.has(key)) return value;
    if (key === 'reasoningEncryptedContent' || key === 'signature' || key === 'redactedData')
      return 'x'.repeat(value.length);
    return filler(value);
  }
  if (Array.isArray(value)) return value.map((item) => skeleton(item, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, skeleton(v, k)]));
  }
  return value;
}

const raw = process.argv[2];
if (raw) {
  const sources = JSON.parse(readFileSync(join(DIR, 'sources.json'), 'utf8')) as PublicSource[];
  for (const source of sources) {
    if (!existsSync(join(raw, source.file))) {
      console.log(`${source.file}: not in ${raw}, left as it is`);
      continue;
    }
    // A BOM, and the line some OpenCode versions print to stdout before the JSON.
    const text = readFileSync(join(raw, source.file), 'utf8')
      .replace(/^\uFEFF/, '')
      .replace(/^Exporting session: ses_\w+\r?\n/, '');
    const out = source.kept === 'verbatim' ? text : `${JSON.stringify(skeleton(JSON.parse(text)))}\n`;
    writeFileSync(join(DIR, source.file), out);
    console.log(`${source.kept === 'verbatim' ? 'kept' : 'skeleton of'} ${source.file}`);
  }
}
