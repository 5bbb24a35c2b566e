import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkTableOwners, type OwnerException, type TreeFile } from '../../scripts/table-owners/check.js';

const KERNEL_TABLES: TreeFile = {
  path: 'src/db/tables.ts',
  text: `export interface Tables {
  /** @owner kernel */
  audit_log: AuditLogTable;
  /** @owner users (why it is so) */
  users: UsersTable;
  /** @owner users @published (a view others read) */
  user_directory: UserDirectoryView;
  /** @owner users */
  user_internals: UserInternalsView;
}`,
};
const STORAGE_TABLES: TreeFile = {
  path: 'src/modules/storage/tables.ts',
  text: `declare module '../../db/tables.js' { interface Tables { storage_uploads: StorageUploadsTable; } }`,
};
const EMAIL_TABLES: TreeFile = {
  path: 'src/modules/email/tables.ts',
  text: `declare module '../../db/tables.js' { interface Tables { email_messages: EmailMessagesTable; } }`,
};

function tree(...files: TreeFile[]): TreeFile[] {
  return [KERNEL_TABLES, STORAGE_TABLES, EMAIL_TABLES, ...files];
}

function at(path: string, text: string): TreeFile {
  return { path, text };
}

describe('the table owners checker', () => {
  it('passes the owners writing their own tables and a family member writing its family table', () => {
    const files = tree(
      at('src/modules/users/queries.ts', `db.updateTable('users').set({ tier }).execute();`),
      at('src/modules/storage/queries.ts', `trx.insertInto('storage_uploads').values(row).execute();`),
      at('src/modules/email/delivery/queries.ts', `trx.insertInto('email_messages').values(row).execute();`),
      at('src/kernel/audit.ts', `trx.insertInto('audit_log').values(row).execute();`),
      at('src/modules/storage/other.ts', `trx.selectFrom('ctes_are_not_tables').selectAll().execute();`),
    );
    expect(checkTableOwners(files, [])).toEqual([]);
  });

  it.each([
    ['insertInto', `trx.insertInto('users').values(row).execute();`],
    ['updateTable with an alias', `trx.updateTable('users as u').set({ avatar_key: key }).execute();`],
    ['deleteFrom', `trx.deleteFrom('users').where('id', '=', id).execute();`],
    ['mergeInto', `trx.mergeInto('users').using('x', 'x.id', 'users.id').execute();`],
    ['a FOR UPDATE lock', `trx.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute();`],
    [
      'a FOR NO KEY UPDATE lock on a join',
      `trx.selectFrom('storage_uploads').innerJoin('users', 'a', 'b').forNoKeyUpdate();`,
    ],
    ['a raw UPDATE', `await sql\`UPDATE users SET avatar_key = \${key} WHERE id = \${id}\`.execute(trx);`],
    ['a raw INSERT', 'await sql`insert into "users" (id) values (gen_random_uuid())`.execute(trx);'],
    ['a raw FOR UPDATE', `await sql\`SELECT id FROM users WHERE id = \${id} FOR UPDATE\`.execute(trx);`],
    ['write.editRow', `await this.write.editRow(actor, { table: 'users', id, fields });`],
  ])('fails on a write to another area’s table: %s', (_name, statement) => {
    const problems = checkTableOwners(tree(at('src/modules/storage/queries.ts', statement)), []);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^src\/modules\/storage\/queries\.ts:1: storage writes users \(.+\), a table of users/);
  });

  it('fails on a kernel table written by an area and on a read of another area’s table', () => {
    const problems = checkTableOwners(
      tree(
        at('src/modules/users/queries.ts', `trx.updateTable('audit_log').set({ summary }).execute();`),
        at('src/modules/me/queries.ts', `db.selectFrom('storage_uploads').select('id').execute();`),
        at('src/modules/me/raw.ts', 'sql`SELECT 1 FROM storage_uploads u JOIN users ON true`'),
      ),
      [],
    );
    expect(problems).toEqual([
      expect.stringMatching(/^src\/modules\/users\/queries\.ts:1: users writes audit_log .+ a table of kernel/),
      expect.stringMatching(/^src\/modules\/me\/queries\.ts:1: me reads storage_uploads .+ a table of storage/),
      expect.stringMatching(/^src\/modules\/me\/raw\.ts:1: me reads storage_uploads /),
      expect.stringMatching(/^src\/modules\/me\/raw\.ts:1: me reads users /),
    ]);
  });

  it('lets a listed exception through, reads only when it allows reads, and fails on a stale one', () => {
    const readUsers: OwnerException = { files: 'src/modules/me/', tables: ['users'], access: 'read', reason: 'test' };
    const stale: OwnerException = { files: 'src/cli/seed/', tables: '*', access: 'write', reason: 'test' };
    const files = tree(
      at('src/modules/me/queries.ts', `db.selectFrom('users').select('id').execute();`),
      at('src/modules/me/profile.ts', `db.updateTable('users').set({ locale }).execute();`),
    );
    expect(checkTableOwners(files, [readUsers, stale])).toEqual([
      expect.stringMatching(/^src\/modules\/me\/profile\.ts:1: me writes users /),
      'scripts/table-owners/exceptions.ts: no longer needed: src/cli/seed/ (write)',
    ]);
  });

  it('fails on a table of an exception nothing uses any more', () => {
    const reads: OwnerException = {
      files: 'src/modules/me/',
      tables: ['users', 'storage_uploads'],
      access: 'read',
      reason: 'test',
    };
    const files = tree(at('src/modules/me/queries.ts', `db.selectFrom('storage_uploads').select('id').execute();`));
    expect(checkTableOwners(files, [reads])).toEqual([
      'scripts/table-owners/exceptions.ts: src/modules/me/ (read) no longer needs users',
    ]);
  });

  it('lets any area read a view its owner publishes, but not write it nor read the tables behind it', () => {
    const files = tree(
      at('src/modules/storage/list.ts', `db.selectFrom('storage_uploads').innerJoin('user_directory as u', 'a', 'b');`),
      at('src/modules/me/raw.ts', 'sql`SELECT email FROM user_directory WHERE id = $1`'),
      at('src/modules/me/hidden.ts', `db.selectFrom('user_internals').select('id').execute();`),
      at('src/modules/me/behind.ts', `db.selectFrom('users').select('email').execute();`),
      at('src/modules/me/write.ts', `db.updateTable('user_directory').set({ email }).execute();`),
      at('src/modules/me/lock.ts', `db.selectFrom('user_directory').select('id').forUpdate().execute();`),
      at('src/modules/users/own.ts', `db.selectFrom('user_internals').select('id').execute();`),
    );
    expect(checkTableOwners(files, [])).toEqual([
      expect.stringMatching(
        /^src\/modules\/me\/hidden\.ts:1: me reads user_internals .+ a table of users: call users's queries through its index\.ts or read a view it publishes$/,
      ),
      expect.stringMatching(/^src\/modules\/me\/behind\.ts:1: me reads users /),
      expect.stringMatching(/^src\/modules\/me\/write\.ts:1: me writes user_directory /),
      expect.stringMatching(/^src\/modules\/me\/lock\.ts:1: me writes user_directory \(.+ FOR UPDATE\)/),
    ]);
  });

  it('reads @published on a view an area’s own tables.ts declares', () => {
    const published = at(
      'src/modules/roles/tables.ts',
      `declare module '../../db/tables.js' { interface Tables {
        /** @published (the owners others check) */
        holders: HoldersView;
        grants: GrantsTable;
      } }`,
    );
    const files = [
      ...tree(published),
      at('src/modules/me/queries.ts', `db.selectFrom('holders').innerJoin('grants', 'a', 'b').execute();`),
    ];
    expect(checkTableOwners(files, [])).toEqual([
      expect.stringMatching(/^src\/modules\/me\/queries\.ts:1: me reads grants .+ a table of roles/),
    ]);
  });

  it('fails on a table of src/db/tables.ts that names no owner', () => {
    const unowned = at('src/db/tables.ts', 'export interface Tables { users: UsersTable; }');
    expect(checkTableOwners([unowned], [])).toEqual([
      'src/db/tables.ts: table users names no owner (add /** @owner <area or kernel> */ to it)',
    ]);
  });

  it('is chained into npm run lint:deps', () => {
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    expect(scripts['lint:deps']).toContain('tsx scripts/check-table-owners.ts');
  });

  // The tree as it is: `npm run lint:deps` runs the check itself, before every test run of `npm test`.
});
