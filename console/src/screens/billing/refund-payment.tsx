import { type components, type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { formatMoney, majorText, minorDigits, minorOf } from './money';
import './billing.css';
import { useUser } from '../../ui/names';

/** A payment as the payments list gives it, or as a refund answers it (without the player's email). */
export type ListedPayment = ListItem<ListBody<'/v1/admin/billing/payments'>>;
export type Payment = ListedPayment | components['schemas']['Payment'];
type Refund = Awaited<ReturnType<typeof refund>>;

const REFUND = 'POST /v1/admin/billing/payments/{id}/refund';

const refund = (payment: Payment, amount: number, reason: string, key: string) =>
  unwrap(
    api.POST('/v1/admin/billing/payments/{id}/refund', {
      params: { path: { id: payment.id }, header: { 'idempotency-key': key } },
      body: { amount, reason },
    }),
  );

/** The ledger of the player's credit movements, the clawbacks first. */
export const ledgerHref = (userId: string) => `/billing/credits?view=ledger&user_id=${userId}&kind=refund_clawback`;

/**
 * Refund a payment, in part or whole, with a reason. The dialog makes one `Idempotency-Key` each
 * time it opens: a second click or a retry after a lost answer sends the same key, and the service
 * answers the first refund instead of refunding again. After the refund, what it took back from
 * the player's credits shows beside the button, with a link to their ledger.
 */
export function RefundPayment({ payment }: { payment: Payment }) {
  const permissions = usePermissions();
  // The payments list names the player; a row from elsewhere (the player page) may not.
  const player = useUser('user_email' in payment ? undefined : payment.user_id);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [key, setKey] = useState('');
  const [done, setDone] = useState<Refund | undefined>();
  const left = payment.amount - payment.amount_refunded;
  const money = (minor: number) => formatMoney(minor, payment.currency);
  const minor = minorOf(amount, payment.currency);
  const canWrite = permissions.can('billing.write');
  const who = ('user_email' in payment ? payment.user_email : player.data?.email) ?? 'the player';
  const expectedClawback =
    payment.credits === null || minor === undefined || payment.amount === 0
      ? undefined
      : Math.floor((payment.credits * Math.min(minor, left)) / payment.amount);
  const digits = minorDigits(payment.currency);

  return (
    <div className="billing-refund">
      <FormDialog<Refund>
        title={`Refund a payment of ${money(payment.amount)}`}
        submitLabel={minor === undefined ? 'Refund' : `Refund ${money(minor)}`}
        destructive
        canSubmit={canWrite && minor !== undefined && minor > 0 && minor <= left}
        trigger={{
          label: 'Refund…',
          isDisabled: !canWrite || left <= 0,
          disabledReason: !canWrite ? 'Refunds need billing.write' : left <= 0 ? 'Fully refunded' : undefined,
        }}
        onOpen={() => {
          setAmount(majorText(left, payment.currency));
          setReason('');
          setKey(globalThis.crypto.randomUUID());
        }}
        write={{
          call: () => refund(payment, minor ?? 0, reason.trim(), key),
          success: (result) =>
            `Refunded ${money(result.amount)} to ${who}` +
            (result.credits_clawed_back > 0 ? `; ${result.credits_clawed_back} credits taken back` : ''),
          failure: 'Could not refund the payment',
          invalidates: [['billing'], ['user', payment.user_id]],
          onDone: setDone,
        }}
      >
        <p className="consequence">
          {money(left)} of {money(payment.amount)} is left to refund to {who}. The money goes back through the payment
          provider and cannot be taken again.
          {payment.credits === null
            ? null
            : ` This payment bought ${payment.credits} credits: the refunded share of them` +
              (expectedClawback === undefined ? '' : ` (${expectedClawback})`) +
              ' is taken back from what is left of the pack; credits already spent stay spent.'}
        </p>
        <TextInput
          label={`Amount (${payment.currency.toUpperCase()})`}
          name="amount"
          value={amount}
          onChange={setAmount}
          isRequired
          pattern={{
            source: digits === 0 ? '\\d+' : `\\d+([.,]\\d{1,${digits}})?`,
            hint: `An amount such as ${majorText(left, payment.currency)}`,
          }}
          error={minor !== undefined && minor > left ? `At most ${money(left)} is left to refund` : undefined}
          description={`At most ${money(left)}.`}
          autoFocus
        />
        <TextInput
          label="Reason"
          name="reason"
          value={reason}
          onChange={setReason}
          isRequired
          minLength={ruleOf(REFUND, 'reason').minLength}
          maxLength={ruleOf(REFUND, 'reason').maxLength}
          description="Kept with the refund and in the audit log."
          multiline
        />
      </FormDialog>
      {done === undefined ? null : (
        <p className="hint" role="status">
          Refunded {formatMoney(done.amount, done.currency)}
          {done.credits_clawed_back > 0 ? `, ${done.credits_clawed_back} credits taken back` : ''}
          {done.shortfall > 0 ? ` (${done.shortfall} already spent)` : ''}.{' '}
          <Link href={ledgerHref(payment.user_id)}>See the player’s ledger</Link>
        </p>
      )}
    </div>
  );
}
