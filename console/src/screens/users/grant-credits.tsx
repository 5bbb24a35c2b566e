import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { useServiceIssue } from '../../ui/service-issues';
import { instantOf, Time } from '../../ui/time';
import type { UserProfile } from './types';

const GRANT = 'POST /v1/admin/billing/credits/grant';
const RULES = { amount: ruleOf(GRANT, 'amount'), reason: ruleOf(GRANT, 'reason') };

/** The reasons staff give most; the player reads the reason in their ledger. */
const PRESETS = [
  { id: 'outage', label: 'Compensation for a service outage' },
  { id: 'failed-session', label: 'Credits back for a failed game session' },
  { id: 'goodwill', label: 'Goodwill gesture' },
  { id: 'promotion', label: 'Promotion or event reward' },
  { id: 'other', label: 'Other (write the reason)' },
];

interface Grant {
  amount: number;
  reason: string;
  expiresAt: string | undefined;
}

/**
 * A grant of credits: a common reason or a written one, then a confirmation that says what will
 * happen ("Grant 500 credits to ana@…"), whatever the amount: a typo of a zero costs real money.
 */
export function GrantCredits({ user }: { user: UserProfile }) {
  const [amount, setAmount] = useState('');
  const [preset, setPreset] = useState('outage');
  const [details, setDetails] = useState('');
  const [expires, setExpires] = useState('');
  const [review, setReview] = useState<Grant | null>(null);
  const other = preset === 'other';
  const presetLabel = PRESETS.find((choice) => choice.id === preset)?.label ?? '';
  const reasonOf = () => {
    const written = details.trim();
    if (other) return written;
    return written === '' ? presetLabel : `${presetLabel}: ${written}`;
  };
  const reset = () => {
    setAmount('');
    setPreset('outage');
    setDetails('');
    setExpires('');
  };

  return (
    <section aria-labelledby="grant-credits" className="stack">
      <h2 id="grant-credits">Grant credits</h2>
      <Form
        className="inline-form"
        aria-labelledby="grant-credits"
        onSubmit={(event) => {
          event.preventDefault();
          setReview({ amount: Number(amount), reason: reasonOf(), expiresAt: instantOf(expires) });
        }}
      >
        <TextInput
          label="Credits"
          name="amount"
          type="number"
          value={amount}
          onChange={setAmount}
          isRequired
          minimum={RULES.amount.minimum}
          maximum={RULES.amount.maximum}
          integer={RULES.amount.integer}
        />
        <ChoiceInput label="Reason" value={preset} choices={PRESETS} onChange={setPreset} />
        <TextInput
          label={other ? 'Written reason' : 'Details (optional)'}
          name="details"
          value={details}
          onChange={setDetails}
          isRequired={other}
          minLength={other ? RULES.reason.minLength : undefined}
          maxLength={(RULES.reason.maxLength ?? 500) - (other ? 0 : presetLabel.length + 2)}
          description="The player reads the reason in their ledger."
        />
        <TextInput label="Lapses (optional)" type="datetime-local" value={expires} onChange={setExpires} />
        <Button type="submit" className="btn btn-primary">
          Grant credits…
        </Button>
      </Form>
      {review === null ? null : (
        <FormDialog
          title={`Grant ${review.amount} credits to ${user.email ?? user.display_name ?? 'this player'}?`}
          submitLabel={`Grant ${review.amount} credits`}
          onClose={() => setReview(null)}
          write={{
            call: () =>
              unwrap(
                api.POST('/v1/admin/billing/credits/grant', {
                  body: {
                    user_id: user.id,
                    amount: review.amount,
                    reason: review.reason,
                    ...(review.expiresAt === undefined ? {} : { expires_at: review.expiresAt }),
                  },
                }),
              ),
            success: (made) => `${review.amount} credits granted; balance ${made.balance}`,
            failure: 'Could not grant credits',
            invalidates: [['user', user.id]],
            onDone: reset,
          }}
        >
          <div className="consequence">
            <p>
              Their balance goes from {user.credit_balance} to {user.credit_balance + review.amount} credits.
            </p>
            <p>They read this reason in their ledger: “{review.reason}”.</p>
            <p>
              {review.expiresAt === undefined ? (
                'These credits never lapse.'
              ) : (
                <>
                  What is left of them lapses <Time value={review.expiresAt} />.
                </>
              )}
            </p>
          </div>
          <GrantIssues />
        </FormDialog>
      )}
    </section>
  );
}

/** The service's verdict on the grant's fields, which the confirmation does not show as inputs. */
function GrantIssues() {
  const issues = [
    ['Credits', useServiceIssue('amount')],
    ['Reason', useServiceIssue('reason')],
    ['Lapses', useServiceIssue('expires_at')],
  ].filter((issue): issue is [string, string] => issue[1] !== undefined);
  if (issues.length === 0) return null;
  return (
    <ul className="error" role="alert">
      {issues.map(([field, issue]) => (
        <li key={field}>
          {field}: {issue}
        </li>
      ))}
    </ul>
  );
}
