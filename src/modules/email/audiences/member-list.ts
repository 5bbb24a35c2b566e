import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvFirstColumnReader, isEmailHeader, type CsvCell } from './csv-first-column.js';
import { isEmailAddress, MAX_EMAIL_LENGTH } from './email-address.js';
import type { MemberInput } from './schemas.js';

/**
 * Turning operation 9's input into the member list to store: the three member forms or the CSV
 * rows, each address checked, `user_id` members given their account's address, and duplicates
 * removed case-insensitively. Pure: the service looks the users up and hands them in.
 */

/** At most this many members after duplicates are removed (spec "Limits"). */
export const MAX_AUDIENCE_MEMBERS = 50_000;
/** How many refused rows a 400 names; `invalid_count` says how many there were in all. */
export const INVALID_SAMPLE_SIZE = 20;
/**
 * CSV characters read between two turns of the event loop: a few milliseconds of work, so other
 * requests (and `/health`) are answered while a 5,000,000-character upload is read.
 */
export const CSV_CHARACTERS_PER_TURN = 64 * 1024;

/** A member before its account is looked up: an address, a user, or both. */
export interface MemberCandidate {
  email?: string;
  user_id?: string;
}

export interface MemberToStore {
  email: string;
  user_id: string | null;
}

export interface InvalidRow {
  value: string;
  /** The CSV line; absent for `members`. */
  line?: number;
}

export interface InvalidUser {
  user_id: string;
  reason: 'not_found' | 'no_email' | 'invalid_email';
}

export interface ReadMembers {
  candidates: MemberCandidate[];
  /** The first INVALID_SAMPLE_SIZE refused rows. */
  invalidRows: InvalidRow[];
  /** How many rows were refused in all. */
  invalidRowCount: number;
  source: 'csv' | 'members';
}

/** A refused cell as the error shows it: a megabyte-long cell must not come back whole. */
function sampleValue(value: string): string {
  return value.length > MAX_EMAIL_LENGTH ? `${value.slice(0, MAX_EMAIL_LENGTH)}…` : value;
}

/**
 * The CSV's addresses, read a stretch at a time with a turn of the event loop between stretches.
 * What is held stays bounded whatever the text: the first INVALID_SAMPLE_SIZE refused rows and a
 * count, and the distinct addresses (case-insensitively, the first spelling kept) up to one past
 * MAX_AUDIENCE_MEMBERS, which is enough to refuse the list as too long.
 */
export async function readCsvMembers(csv: string): Promise<ReadMembers> {
  const reader = new CsvFirstColumnReader(csv);
  const addresses = new Map<string, string>();
  const invalidRows: InvalidRow[] = [];
  let invalidRowCount = 0;
  let firstRow = true;
  const take = (cell: CsvCell) => {
    const header = firstRow && isEmailHeader(cell);
    firstRow = false;
    if (header) return;
    if (!isEmailAddress(cell.value)) {
      invalidRowCount += 1;
      if (invalidRows.length < INVALID_SAMPLE_SIZE) {
        invalidRows.push({ value: sampleValue(cell.value), line: cell.line });
      }
      return;
    }
    if (addresses.size > MAX_AUDIENCE_MEMBERS) return;
    const key = cell.value.toLowerCase();
    if (!addresses.has(key)) addresses.set(key, cell.value);
  };
  for (;;) {
    reader.read(CSV_CHARACTERS_PER_TURN, take);
    if (reader.done) break;
    await nextTurn();
  }
  const candidates = [...addresses.values()].map((email): MemberCandidate => ({ email }));
  return { candidates, invalidRows, invalidRowCount, source: 'csv' };
}

/** The `members` array: its addresses were already checked by the body schema. */
export function readListedMembers(members: MemberInput[]): ReadMembers {
  const candidates = members.map(
    (member): MemberCandidate => (typeof member === 'string' ? { email: member } : member),
  );
  return { candidates, invalidRows: [], invalidRowCount: 0, source: 'members' };
}

/** The distinct user ids the candidates name, to look up in one query. */
export function userIdsOf(candidates: MemberCandidate[]): string[] {
  return [...new Set(candidates.flatMap((c) => (c.user_id === undefined ? [] : [c.user_id.toLowerCase()])))];
}

/**
 * The list to store. A `user_id` member without an address takes its account's; an unknown
 * user, or one with no usable address, is refused. The first occurrence of an address is kept;
 * a later duplicate only adds the user id the kept one lacks.
 */
export function resolveMembers(
  candidates: MemberCandidate[],
  userEmails: Map<string, string | null>,
): { members: MemberToStore[]; invalidUsers: InvalidUser[] } {
  const byEmail = new Map<string, MemberToStore>();
  const invalidUsers: InvalidUser[] = [];
  for (const candidate of candidates) {
    const userId = candidate.user_id?.toLowerCase();
    let email = candidate.email;
    if (userId !== undefined) {
      if (!userEmails.has(userId)) {
        invalidUsers.push({ user_id: userId, reason: 'not_found' });
        continue;
      }
      const accountEmail = userEmails.get(userId) ?? null;
      if (email === undefined) {
        if (accountEmail === null) {
          invalidUsers.push({ user_id: userId, reason: 'no_email' });
          continue;
        }
        if (!isEmailAddress(accountEmail)) {
          invalidUsers.push({ user_id: userId, reason: 'invalid_email' });
          continue;
        }
        email = accountEmail.trim();
      }
    }
    const key = email!.toLowerCase();
    const kept = byEmail.get(key);
    if (kept === undefined) byEmail.set(key, { email: key, user_id: userId ?? null });
    else if (kept.user_id === null && userId !== undefined) kept.user_id = userId;
  }
  return { members: [...byEmail.values()], invalidUsers };
}

/** The 400 `validation_failed` details: capped samples, and how many rows and users were refused in all. */
export function invalidDetails(read: ReadMembers, invalidUsers: InvalidUser[]) {
  const sample = read.invalidRows.slice(0, INVALID_SAMPLE_SIZE);
  return {
    invalid_emails: sample.map((row) => row.value),
    invalid_count: read.invalidRowCount + invalidUsers.length,
    ...(sample.some((row) => row.line !== undefined) ? { invalid_lines: sample.map((row) => row.line!) } : {}),
    ...(invalidUsers.length > 0 ? { invalid_users: invalidUsers.slice(0, INVALID_SAMPLE_SIZE) } : {}),
  };
}
