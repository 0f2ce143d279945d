/** The schema description rendered as SQLite DDL. */
import type { Migration, Table } from '../schema';

const TYPES = { text: 'TEXT', integer: 'INTEGER', real: 'REAL', json: 'TEXT' } as const;

function table(t: Table): string {
  const columns = t.columns.map((c) =>
    c.serial
      ? `${c.name} INTEGER PRIMARY KEY AUTOINCREMENT`
      : `${c.name} ${TYPES[c.type]}${c.nullable ? '' : ' NOT NULL'}${t.primaryKey.length === 1 && t.primaryKey[0] === c.name ? ' PRIMARY KEY' : ''}`,
  );
  if (t.primaryKey.length > 1) columns.push(`PRIMARY KEY (${t.primaryKey.join(', ')})`);
  for (const ref of t.references ?? []) {
    const i = columns.findIndex((c) => c.startsWith(`${ref.column} `));
    columns[i] += ` REFERENCES ${ref.table}(${ref.to})`;
  }
  return `CREATE TABLE ${t.name} (\n  ${columns.join(',\n  ')}\n)`;
}

export function migrationSql(migration: readonly Migration[]): string {
  return migration
    .map((step) =>
      step.kind === 'table'
        ? table(step.table)
        : `CREATE INDEX ${step.name} ON ${step.table} (${step.columns.join(', ')})`,
    )
    .map((sql) => `${sql};`)
    .join('\n');
}
