// A local ESLint rule: no class body longer than `max` lines of code (blank lines and comment-only
// lines not counted, as max-lines-per-function counts). ESLint has max-lines (per file) and
// max-lines-per-function but nothing for classes, and no well-kept plugin adds it; a class's
// methods each within 80 lines can still add up to a class nobody can hold in mind.

/** @type {import('eslint').Rule.RuleModule} */
export const maxClassLines = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Enforce a maximum number of code lines in a class' },
    schema: [
      {
        type: 'object',
        properties: { max: { type: 'integer', minimum: 0 } },
        additionalProperties: false,
      },
    ],
    messages: {
      tooLong: "Class '{{name}}' has too many lines ({{lines}}). Maximum allowed is {{max}}.",
    },
  },
  create(context) {
    const max = context.options[0]?.max ?? 300;
    const source = context.sourceCode;
    // Lines that hold nothing but comment: every character on them is inside some comment.
    const commentLines = new Set();
    for (const comment of source.getAllComments()) {
      for (let line = comment.loc.start.line; line <= comment.loc.end.line; line += 1) {
        const text = source.lines[line - 1];
        const before = line === comment.loc.start.line ? text.slice(0, comment.loc.start.column) : '';
        const after = line === comment.loc.end.line ? text.slice(comment.loc.end.column) : '';
        if (before.trim() === '' && after.trim() === '') commentLines.add(line);
      }
    }
    function check(node) {
      let lines = 0;
      for (let line = node.loc.start.line; line <= node.loc.end.line; line += 1) {
        if (source.lines[line - 1].trim() !== '' && !commentLines.has(line)) lines += 1;
      }
      if (lines > max) {
        const name = node.id?.name ?? 'anonymous';
        context.report({ node, loc: node.loc.start, messageId: 'tooLong', data: { name, lines, max } });
      }
    }
    return { ClassDeclaration: check, ClassExpression: check };
  },
};

export default { rules: { 'max-class-lines': maxClassLines } };
