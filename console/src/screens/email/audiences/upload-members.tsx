import { isPlatformApiError, unwrap } from '@platform-api/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Button } from 'react-aria-components';
import { api } from '../../../api/client';
import { ruleOf } from '../../../api/field-rules';
import { describeProblem } from '../../../api/problems';
import { Confirm } from '../../../ui/confirm';
import { notify } from '../../../ui/toasts';
import { type Audience, NEEDS_WRITE } from './audience-dialogs';
import { fetchWithUploadProgress, type UploadProgress } from './upload';

const MAX_CSV = ruleOf('PUT /v1/admin/email/audiences/{id}/members', 'csv').maxLength ?? 5_000_000;
const number = (value: number) => value.toLocaleString('en-GB');
const sizeOf = (bytes: number) =>
  bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1000))} kB`;

interface Refusal {
  message: string;
  invalidCount?: number;
  rows: Array<{ line: number | undefined; cell: string }>;
}

type Outcome = { kind: 'replaced'; count: number; file: string } | { kind: 'refused'; refusal: Refusal };

/** The service's refusal of a CSV in words, with the first refused rows it names and the count of all. */
function refusalOf(error: unknown): Refusal {
  const message = describeProblem(error).message;
  if (!isPlatformApiError(error)) return { message, rows: [] };
  const details = (error.details ?? {}) as {
    invalid_count?: number;
    invalid_emails?: string[];
    invalid_lines?: number[];
    max?: number;
  };
  if (error.code === 'too_many_members')
    return {
      message: `The file holds more than ${number(details.max ?? 50_000)} distinct addresses, the most an audience can hold. Nothing was changed.`,
      rows: [],
    };
  if (error.code === 'validation_failed' && details.invalid_count !== undefined)
    return {
      message: 'Some rows are not email addresses. Nothing was changed: fix them and upload the file again.',
      invalidCount: details.invalid_count,
      rows: (details.invalid_emails ?? []).map((cell, index) => ({ line: details.invalid_lines?.[index], cell })),
    };
  return { message: `${message} Nothing was changed.`, rows: [] };
}

/**
 * Replaces an audience's members with a CSV file (its first column the address), showing how much
 * of it has gone up and, when the service refuses it, the first rows it refused and how many in all.
 */
export function UploadMembers({ audience, canWrite }: { audience: Audience; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const [file, setFile] = useState<{ name: string; text: string; rows: number } | undefined>();
  const [tooLong, setTooLong] = useState<string | undefined>();
  const [progress, setProgress] = useState<UploadProgress | undefined>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>();

  const choose = async (chosen: File | undefined) => {
    setOutcome(undefined);
    setProgress(undefined);
    setTooLong(undefined);
    setFile(undefined);
    if (chosen === undefined) return;
    const text = await chosen.text();
    if (text.length > MAX_CSV) {
      setTooLong(
        `${chosen.name} has ${number(text.length)} characters; the service takes at most ${number(MAX_CSV)}. Split it or remove columns other than the address.`,
      );
      return;
    }
    const rows = text.split(/\r\n|\n|\r/).filter((line) => line.trim() !== '').length;
    setFile({ name: chosen.name, text, rows });
  };

  const upload = async () => {
    if (file === undefined) return;
    setBusy(true);
    setOutcome(undefined);
    setProgress({ sent: 0, total: file.text.length });
    try {
      const result = await unwrap(
        api.PUT('/v1/admin/email/audiences/{id}/members', {
          params: { path: { id: audience.id } },
          body: { csv: file.text },
          fetch: fetchWithUploadProgress(setProgress),
        }),
      );
      setOutcome({ kind: 'replaced', count: result.count, file: file.name });
      notify.success(`${audience.name} now has ${number(result.count)} members`);
      await queryClient.invalidateQueries({ queryKey: ['email', 'audience', audience.id] });
      await queryClient.invalidateQueries({ queryKey: ['email', 'audiences'] });
    } catch (error) {
      setOutcome({ kind: 'refused', refusal: refusalOf(error) });
    } finally {
      setBusy(false);
    }
  };

  const percent =
    progress === undefined || progress.total === 0 ? 0 : Math.round((progress.sent / progress.total) * 100);
  const uploadLabel = 'Upload and replace members';

  return (
    <section className="card stack-tight" aria-labelledby={`${inputId}-heading`}>
      <h3 id={`${inputId}-heading`}>Upload members</h3>
      <p className="muted">
        A CSV file whose first column is the email address (a first row <code>email</code> is a header), up to{' '}
        {number(MAX_CSV)} characters and 50,000 addresses. The file replaces the whole list; duplicates are dropped.
      </p>
      <div className="field">
        <label htmlFor={inputId}>CSV file</label>
        <input
          id={inputId}
          type="file"
          accept=".csv,text/csv,text/plain"
          disabled={!canWrite || busy}
          onChange={(event) => void choose(event.currentTarget.files?.[0])}
        />
        {canWrite ? null : <span className="hint">{NEEDS_WRITE}</span>}
      </div>
      {tooLong === undefined ? null : (
        <p className="error" role="alert">
          {tooLong}
        </p>
      )}
      {file === undefined ? null : (
        <p>
          {file.name}: {number(file.rows)} lines, {sizeOf(file.text.length)}.
        </p>
      )}
      {file === undefined || !canWrite ? null : audience.member_count > 0 ? (
        <Confirm
          trigger={`${uploadLabel}…`}
          triggerClassName="btn btn-primary"
          isDisabled={busy}
          title={`Replace the members of ${audience.name}?`}
          consequence={
            `The ${number(audience.member_count)} members on the list now are replaced by the addresses in ` +
            `${file.name}; those not in the file leave the audience. Campaigns already launched keep their recipients.`
          }
          confirmLabel="Replace members"
          write={{
            // The dialog closes at once: the upload's progress and outcome show on the page.
            call: async () => {
              void upload();
            },
          }}
        />
      ) : (
        <Button className="btn btn-primary" isDisabled={busy} onPress={() => void upload()}>
          {uploadLabel}
        </Button>
      )}
      {progress === undefined ? null : (
        <div className="email-upload-progress">
          <progress aria-label="Upload progress" max={100} value={percent} />
          <span aria-live="polite">
            {busy && percent < 100
              ? `Sending ${sizeOf(progress.sent)} of ${sizeOf(progress.total)} (${percent}%)`
              : busy
                ? 'Sent; the service is reading the rows…'
                : outcome?.kind === 'replaced'
                  ? 'Done.'
                  : 'Sent.'}
          </span>
        </div>
      )}
      {outcome?.kind === 'replaced' ? (
        <p role="status">
          {outcome.file} uploaded: {audience.name} now has {number(outcome.count)} members.
        </p>
      ) : null}
      {outcome?.kind === 'refused' ? <RefusedRows refusal={outcome.refusal} /> : null}
    </section>
  );
}

function RefusedRows({ refusal }: { refusal: Refusal }) {
  return (
    <div className="stack-tight email-refusal" role="alert">
      <p className="error">{refusal.message}</p>
      {refusal.invalidCount === undefined ? null : (
        <p>
          <strong>
            {number(refusal.invalidCount)} row{refusal.invalidCount === 1 ? ' is' : 's are'} not an address.
          </strong>{' '}
          {refusal.rows.length < refusal.invalidCount ? `The first ${refusal.rows.length}:` : 'They are:'}
        </p>
      )}
      {refusal.rows.length === 0 ? null : (
        <div className="table-scroll">
          <table className="table" aria-label="Refused rows">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">First cell</th>
              </tr>
            </thead>
            <tbody>
              {refusal.rows.map((row, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows are fixed once shown
                <tr key={index}>
                  <td>{row.line ?? ''}</td>
                  <td className="email-cell">{row.cell === '' ? '(empty)' : row.cell}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
