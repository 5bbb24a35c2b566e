import { TextInput } from '../../ui/fields';

/** The users list's rarer filters, which a broadcast's segment takes too. */
export interface SegmentExtras {
  tier: string;
  role: string;
  provider: string;
  created_from: string;
  created_to: string;
  last_seen_from: string;
  last_seen_to: string;
}

const EXTRA_KEYS: Array<keyof SegmentExtras> = [
  'tier',
  'role',
  'provider',
  'created_from',
  'created_to',
  'last_seen_from',
  'last_seen_to',
];

/** Whether one of the rarer filters holds a value (so they stay in sight). */
export const segmentExtrasSet = (values: SegmentExtras) => EXTRA_KEYS.some((key) => values[key] !== '');

/** Tier, role, sign-in provider, and when people joined and were last seen: one set of fields for both. */
export function SegmentExtraFields({
  values,
  onChange,
}: {
  values: SegmentExtras;
  onChange: (change: Partial<SegmentExtras>) => void;
}) {
  return (
    <>
      <TextInput label="Tier key" value={values.tier} maxLength={32} onChange={(tier) => onChange({ tier })} />
      <TextInput label="Role key" value={values.role} maxLength={48} onChange={(role) => onChange({ role })} />
      <TextInput
        label="Sign-in provider"
        value={values.provider}
        maxLength={32}
        onChange={(provider) => onChange({ provider })}
      />
      <TextInput
        label="Joined from"
        type="datetime-local"
        value={values.created_from}
        onChange={(value) => onChange({ created_from: value })}
      />
      <TextInput
        label="Joined until"
        type="datetime-local"
        value={values.created_to}
        onChange={(value) => onChange({ created_to: value })}
      />
      <TextInput
        label="Last seen from"
        type="datetime-local"
        value={values.last_seen_from}
        onChange={(value) => onChange({ last_seen_from: value })}
      />
      <TextInput
        label="Last seen until"
        type="datetime-local"
        value={values.last_seen_to}
        onChange={(value) => onChange({ last_seen_to: value })}
      />
    </>
  );
}
