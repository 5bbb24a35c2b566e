import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { AuditLogService } from '../modules/audit/service.js';
import type { CommandGroup, CommandIo } from './command.js';
import { withDatabase } from './database.js';
import { UsageError } from './errors.js';
import { Progress } from './progress.js';

export const AUDIT_EXPORT_USAGE = `Usage: platform-api audit export [--since <iso>] [--until <iso>] [--format jsonl|csv] [--batch-size 1000]

Writes the audit log's entries from --since (inclusive; default: the first) to --until
(exclusive; default: when the command started), oldest first, to stdout: one JSON object a
line (jsonl, the default) or CSV with a header line (csv; a field starting with = + - @ is
prefixed with ' so a spreadsheet does not run it; summary is its JSON text). Times are ISO 8601
with a zone (2026-11-01T00:00:00Z, 2026-11-01T02:00:00+02:00) or a date (2026-11-01, midnight
UTC). Entries are read --batch-size at a time (1-10000) after the last one written, never all at
once. Progress goes to stderr: a bar on a terminal, a line every 5 s otherwise, and a last line
with the count. Columns: id, created_at (UTC, microseconds), actor_id, actor_email, action,
target_type, target_id, request_id, ip, user_agent, reason, summary.`;

const COLUMNS = [
  'id',
  'created_at',
  'actor_id',
  'actor_email',
  'action',
  'target_type',
  'target_id',
  'request_id',
  'ip',
  'user_agent',
  'reason',
  'summary',
] as const;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO 8601 time with its zone (a date alone is its midnight UTC), as PostgreSQL will read it. */
function isoOption(value: string, name: string): string {
  const text = ISO_DATE.test(value) ? `${value}T00:00:00Z` : value;
  if (!ISO_TIME.test(text) || Number.isNaN(Date.parse(text))) {
    throw new UsageError(
      `${name} must be an ISO 8601 time with a zone (2026-11-01T00:00:00Z) or a date (2026-11-01), got "${value}"`,
      AUDIT_EXPORT_USAGE,
    );
  }
  return text;
}

function batchSizeOption(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < 1 || parsed > 10_000)
    throw new UsageError('--batch-size must be an integer from 1 to 10000', AUDIT_EXPORT_USAGE);
  return parsed;
}

async function formatter(format: 'jsonl' | 'csv'): Promise<Transform> {
  if (format === 'csv') {
    // Loaded here: every command, `serve` first, shares this module's imports.
    const { stringify } = await import('csv-stringify');
    return stringify({
      header: true,
      columns: [...COLUMNS],
      escape_formulas: true,
      cast: { object: (value) => JSON.stringify(value) },
    });
  }
  return new Transform({
    writableObjectMode: true,
    transform(row, _encoding, done) {
      done(null, `${JSON.stringify(row)}\n`);
    },
  });
}

/** A reader that went away (`… | head`): the export stops there, as any Unix filter's would. */
function isClosedPipe(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE';
}

async function exportAudit(args: string[], io: CommandIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      since: { type: 'string' },
      until: { type: 'string' },
      format: { type: 'string', default: 'jsonl' },
      'batch-size': { type: 'string', default: '1000' },
    },
  });
  const format = values.format;
  if (format !== 'jsonl' && format !== 'csv')
    throw new UsageError(`--format must be jsonl or csv, got "${format}"`, AUDIT_EXPORT_USAGE);
  const since = values.since === undefined ? undefined : isoOption(values.since, '--since');
  const until = values.until === undefined ? new Date().toISOString() : isoOption(values.until, '--until');
  if (since !== undefined && Date.parse(since) > Date.parse(until))
    throw new UsageError('--since must not be after --until', AUDIT_EXPORT_USAGE);
  const batchSize = batchSizeOption(values['batch-size']);

  await withDatabase(
    loadConfig(io.env),
    'audit export',
    async (database) => {
      const audit = new AuditLogService(database.db);
      const range = { since, until };
      // A bar needs the end: counted only for a terminal, where someone watches it.
      const total = io.stderr.isTTY ? await audit.countExport(range) : undefined;
      const progress = new Progress(io.stderr, 'audit export', { total });
      async function* entries() {
        for await (const batch of audit.exportBatches(range, batchSize)) {
          yield* batch;
          progress.add(batch.length);
        }
      }
      try {
        // stdout is not ended: the process goes on writing (the error line, if any) and exits itself.
        await pipeline(Readable.from(entries()), await formatter(format), io.stdout, { end: false });
      } catch (error) {
        if (!isClosedPipe(error)) throw error;
      }
      progress.done('entries');
    },
    { readOnly: true },
  );
}

export const AUDIT: CommandGroup = {
  summary: 'The audit log, for other tools',
  subcommands: {
    export: {
      summary: 'stream entries between two times as JSON lines or CSV',
      usage: AUDIT_EXPORT_USAGE,
      run: exportAudit,
    },
  },
};
