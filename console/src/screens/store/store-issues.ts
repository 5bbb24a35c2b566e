import { isPlatformApiError } from '@platform-api/sdk';
import { describeProblem } from '../../api/problems';

const FIELDS_IN_DETAILS = ['slug', 'name', 'genre_ids', 'developer_ids', 'publisher_ids'];

/**
 * The store's refusals by field: the validation issues, and a 409 or 422 whose `details` name the
 * field (a taken slug or name, ids that link to nothing), so the words show beneath that field.
 */
export function storeIssues(error: unknown): Record<string, string> {
  const { message, fields } = describeProblem(error);
  if (!isPlatformApiError(error) || error.problem.kind !== 'application') return fields;
  const details = error.details;
  if (typeof details !== 'object' || details === null) return { '': message };
  const record = details as Record<string, unknown>;
  const reason = typeof record.reason === 'string' ? record.reason : message;
  const named = FIELDS_IN_DETAILS.filter((field) => field in record);
  if (named.length === 0) return { '': `${message} ${reason}` };
  return Object.fromEntries(
    named.map((field) => {
      const value = record[field];
      return [field, Array.isArray(value) ? `${reason}: ${value.join(', ')}` : `${reason}: ${String(value)}`];
    }),
  );
}
