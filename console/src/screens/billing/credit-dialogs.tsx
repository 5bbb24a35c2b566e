import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { instantOf } from '../../ui/time';
import { packLabel } from './money';
import { useUser } from '../../ui/names';

const GRANT = 'POST /v1/admin/billing/credits/grant';
const GIFT = 'POST /v1/admin/billing/credits/gift-pack';
const invalidates = (userId: string) => [['billing'], ['user', userId]];

/** Why a grant or gift cannot be made yet, or undefined when it can. */
function useBlocked(userId: string) {
  const permissions = usePermissions();
  if (!permissions.can('billing.write')) return 'Needs billing.write';
  if (userId === '') return 'Choose a player first (Player email above)';
  return undefined;
}

const lapseWords = (local: string) => {
  const at = instantOf(local);
  return at === undefined
    ? 'They never lapse.'
    : `They lapse on ${new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}.`;
};

/** Grant credits to the chosen player: the dialog says how many, to whom and until when before it grants. */
export function GrantCredits({ userId }: { userId: string }) {
  const blocked = useBlocked(userId);
  const player = useUser(userId === '' ? undefined : userId);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [key, setKey] = useState('');
  const who = player.data?.email ?? 'the player';
  const credits = Number(amount);
  const valid = Number.isInteger(credits) && credits > 0;

  return (
    <FormDialog
      title="Grant credits"
      submitLabel={valid ? `Grant ${credits} credits` : 'Grant credits'}
      trigger={{ label: 'Grant credits…', isDisabled: blocked !== undefined, disabledReason: blocked }}
      onOpen={() => {
        setAmount('');
        setReason('');
        setExpires('');
        setKey(globalThis.crypto.randomUUID());
      }}
      write={{
        call: () => {
          const expiresAt = instantOf(expires);
          return unwrap(
            api.POST('/v1/admin/billing/credits/grant', {
              params: { header: { 'idempotency-key': key } },
              body: {
                user_id: userId,
                amount: credits,
                reason: reason.trim(),
                ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
              },
            }),
          );
        },
        success: (result) => `${credits} credits granted to ${who}; balance ${result.balance}`,
        failure: 'Could not grant credits',
        invalidates: invalidates(userId),
      }}
    >
      <TextInput
        label="Credits"
        name="amount"
        type="number"
        value={amount}
        onChange={setAmount}
        isRequired
        integer
        minimum={ruleOf(GRANT, 'amount').minimum}
        maximum={ruleOf(GRANT, 'amount').maximum}
        autoFocus
      />
      <TextInput
        label="Reason"
        name="reason"
        value={reason}
        onChange={setReason}
        isRequired
        minLength={ruleOf(GRANT, 'reason').minLength}
        maxLength={ruleOf(GRANT, 'reason').maxLength}
        description="The player sees it in their ledger; kept in the audit log."
        multiline
      />
      <TextInput
        label="Lapses (optional)"
        name="expires_at"
        type="datetime-local"
        value={expires}
        onChange={setExpires}
      />
      <p className="consequence" role="status">
        {valid ? `Adds ${credits} credits` : 'Adds the credits'} to {who}’s balance now, at no charge.{' '}
        {lapseWords(expires)}
      </p>
    </FormDialog>
  );
}

/** Gift packs of credits to the chosen player: which pack, how many, and what they add, before it gifts. */
export function GiftPack({ userId }: { userId: string }) {
  const blocked = useBlocked(userId);
  const player = useUser(userId === '' ? undefined : userId);
  const giftables = useQuery({
    queryKey: ['billing', 'giftable-tiers'],
    queryFn: () => unwrap(api.GET('/v1/admin/billing/giftable-tiers')),
    staleTime: 300_000,
  });
  const packs = giftables.data?.packs ?? [];
  const [packId, setPackId] = useState('');
  const [quantity, setQuantity] = useState('1');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const [key, setKey] = useState('');
  const who = player.data?.email ?? 'the player';
  const pack = packs.find((each) => each.id === packId);
  const count = Number(quantity);
  const adds = pack === undefined || !Number.isInteger(count) || count < 1 ? undefined : pack.credits * count;

  return (
    <FormDialog
      title="Gift a credit pack"
      submitLabel={adds === undefined ? 'Gift' : `Gift ${adds} credits`}
      canSubmit={pack !== undefined}
      trigger={{
        label: 'Gift a pack…',
        isDisabled: blocked !== undefined || packs.length === 0,
        disabledReason: blocked ?? (packs.length === 0 ? 'No credit pack is on offer' : undefined),
      }}
      onOpen={() => {
        setPackId(packs[0]?.id ?? '');
        setQuantity('1');
        setReason('');
        setExpires('');
        setKey(globalThis.crypto.randomUUID());
      }}
      write={{
        call: () => {
          const expiresAt = instantOf(expires);
          return unwrap(
            api.POST('/v1/admin/billing/credits/gift-pack', {
              params: { header: { 'idempotency-key': key } },
              body: {
                user_id: userId,
                product_id: packId,
                quantity: count,
                reason: reason.trim(),
                ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
              },
            }),
          );
        },
        success: (result) => `${result.credits} credits gifted to ${who}; balance ${result.balance}`,
        failure: 'Could not gift the pack',
        invalidates: invalidates(userId),
      }}
    >
      <ChoiceInput
        label="Pack"
        value={packId}
        choices={packs.map((each) => ({ id: each.id, label: packLabel(each) }))}
        onChange={setPackId}
      />
      <TextInput
        label="How many packs"
        name="quantity"
        type="number"
        value={quantity}
        onChange={setQuantity}
        isRequired
        integer
        minimum={ruleOf(GIFT, 'quantity').minimum}
        maximum={ruleOf(GIFT, 'quantity').maximum}
      />
      <TextInput
        label="Reason"
        name="reason"
        value={reason}
        onChange={setReason}
        isRequired
        minLength={ruleOf(GIFT, 'reason').minLength}
        maxLength={ruleOf(GIFT, 'reason').maxLength}
        description="The player sees it in their ledger; kept in the audit log."
        multiline
      />
      <TextInput
        label="Lapses (optional)"
        name="expires_at"
        type="datetime-local"
        value={expires}
        onChange={setExpires}
      />
      <p className="consequence" role="status">
        {adds === undefined ? 'Adds the pack’s credits' : `Adds ${adds} credits (${count} × ${pack?.name})`} to {who}
        ’s balance now, as a gift: nothing is charged and no payment is recorded. {lapseWords(expires)}
      </p>
    </FormDialog>
  );
}
