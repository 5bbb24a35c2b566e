import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { usePermissions } from '../../api/permissions';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';

const EDIT = 'PATCH /v1/admin/users/{id}';

interface EditableUser {
  id: string;
  email: string | null;
  display_name: string | null;
  tier: string | null;
  metadata: Record<string, unknown>;
}

/** `{…}` text that parses to a JSON object, or why not. */
function parseObject(text: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { value: value as Record<string, unknown> };
    }
    return { problem: 'Metadata must be a JSON object: { "key": value, … }.' };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}

/**
 * A player's display name, tier and metadata, with the reason kept in the audit log. Only what
 * changed is sent (an edit that changes nothing is not audited by the service either).
 */
export function EditProfile({ user }: { user: EditableUser }) {
  const permissions = usePermissions();
  const canWrite = permissions.can('users.write');
  const tiers = useQuery({
    queryKey: ['plans', 'tiers'],
    queryFn: () => unwrap(api.GET('/v1/admin/plans/tiers')),
    enabled: canWrite && permissions.can('plans.read'),
    staleTime: 300_000,
  });
  const initialMetadata = JSON.stringify(user.metadata, null, 2);
  const [displayName, setDisplayName] = useState(user.display_name ?? '');
  const [tier, setTier] = useState(user.tier ?? '');
  const [metadata, setMetadata] = useState(initialMetadata);
  const [reason, setReason] = useState('');
  const parsed = parseObject(metadata);
  const reset = () => {
    setDisplayName(user.display_name ?? '');
    setTier(user.tier ?? '');
    setMetadata(initialMetadata);
    setReason('');
  };

  const body = () => ({
    ...(displayName.trim() === (user.display_name ?? '') ? {} : { display_name: displayName.trim() || null }),
    ...(tier === (user.tier ?? '') ? {} : { tier: tier === '' ? null : tier }),
    ...('value' in parsed && metadata !== initialMetadata ? { metadata: parsed.value } : {}),
    ...(reason.trim() === '' ? {} : { reason: reason.trim() }),
  });
  const changes = Object.keys(body()).filter((key) => key !== 'reason');

  return (
    <FormDialog
      title={`Edit ${user.email ?? user.display_name ?? 'this player'}`}
      submitLabel="Save profile"
      wide
      trigger={{ label: 'Edit profile…', isDisabled: !canWrite, disabledReason: 'Needs users.write' }}
      onOpen={reset}
      canSubmit={changes.length > 0 && 'value' in parsed}
      write={{
        call: () => unwrap(api.PATCH('/v1/admin/users/{id}', { params: { path: { id: user.id } }, body: body() })),
        success: 'Profile saved',
        failure: 'Could not save the profile',
        invalidates: [['user', user.id], ['users']],
      }}
    >
      <TextInput
        label="Display name"
        name="display_name"
        value={displayName}
        onChange={setDisplayName}
        maxLength={100}
        description="Empty removes it."
        autoFocus
      />
      {tiers.data === undefined ? (
        <TextInput
          label="Tier key"
          name="tier"
          value={tier}
          onChange={setTier}
          maxLength={32}
          description="A plan tier's key; empty removes the tier."
        />
      ) : (
        <ChoiceInput
          label="Tier"
          value={tier}
          choices={[
            { id: '', label: 'No tier' },
            ...tiers.data.data.map((each) => ({ id: each.key, label: `${each.name} (${each.key})` })),
          ]}
          onChange={setTier}
        />
      )}
      <TextInput
        label="Metadata (JSON object)"
        name="metadata"
        value={metadata}
        onChange={setMetadata}
        multiline
        error={'problem' in parsed ? parsed.problem : undefined}
        description="Replaces the whole object."
      />
      <TextInput
        label="Reason"
        name="reason"
        value={reason}
        onChange={setReason}
        maxLength={ruleOf(EDIT, 'reason').maxLength}
        description="Kept in the audit log."
      />
    </FormDialog>
  );
}
