import { unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { useUser } from '../../ui/names';
import { ProviderLink } from './provider-link';

/**
 * A list's player filter, kept as `user_id` in the address: type an email (or part of it) and the
 * one matching player is chosen; the chosen player shows by email with a way to clear.
 */
export function PlayerFilter({ userId, onChange }: { userId: string; onChange: (userId: string) => void }) {
  const player = useUser(userId === '' ? undefined : userId);
  const [note, setNote] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  if (userId !== '') {
    return (
      <div className="field billing-player-filter">
        <span className="field-label">Player</span>
        <span>
          <Link href={`/users/${userId}`}>{player.data?.email ?? (player.isPending ? '…' : userId)}</Link>{' '}
          <Button className="btn btn-quiet" onPress={() => onChange('')}>
            Any player
          </Button>
          <ProviderLink type="customer" id={userId} label="Customer at the provider…" />
        </span>
      </div>
    );
  }
  const find = async (typed: string) => {
    const text = typed.trim();
    setNote(undefined);
    if (text === '') return;
    setBusy(true);
    try {
      const found = await unwrap(api.GET('/v1/admin/users', { params: { query: { q: text, per_page: 10 } } }));
      const exact = found.data.find((user) => user.email?.toLowerCase() === text.toLowerCase());
      const chosen = exact ?? (found.data.length === 1 ? found.data[0] : undefined);
      if (chosen !== undefined) onChange(chosen.id);
      else if (found.data.length === 0) setNote(`No player matches “${text}”.`);
      else setNote(`${found.meta.total ?? found.data.length} players match “${text}”: type the whole email.`);
    } catch {
      setNote('Could not look the player up; try again.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <SearchField className="field" onSubmit={(value) => void find(value)} isDisabled={busy}>
      <Label>Player email</Label>
      <Input placeholder="Press Enter to filter" />
      {note === undefined ? null : (
        <span className="hint" role="status">
          {note}
        </span>
      )}
    </SearchField>
  );
}
