import { isPlatformApiError, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';

/**
 * What the identity provider holds for a player: sign-in methods, confirmation, last sign-in and
 * the provider's own ban. The embedded provider keeps no such record (404), which is said in words.
 */
export function IdentityRecord({ userId }: { userId: string }) {
  const record = useQuery({
    queryKey: ['user', userId, 'identity'],
    queryFn: () => unwrap(api.GET('/v1/admin/users/{id}/identity', { params: { path: { id: userId } } })),
    retry: false,
  });
  if (record.error !== null) {
    if (isPlatformApiError(record.error) && record.error.status === 404) {
      return (
        <p className="muted">
          The identity provider holds no record of this player (the embedded provider keeps none).
        </p>
      );
    }
    return <ProblemNote error={record.error} />;
  }
  if (record.data === undefined) return <p className="loading">Asking the identity provider…</p>;
  const account = record.data;
  return (
    <dl className="facts">
      <dt>Sign-in methods</dt>
      <dd>{account.providers.length === 0 ? 'none' : account.providers.join(', ')}</dd>
      <dt>Email confirmed</dt>
      <dd>{account.email_confirmed_at === null ? 'not confirmed' : <Time value={account.email_confirmed_at} />}</dd>
      <dt>Last sign-in</dt>
      <dd>{account.last_sign_in_at === null ? 'never' : <Time value={account.last_sign_in_at} />}</dd>
      <dt>Banned at the provider until</dt>
      <dd>{account.banned_until === null ? 'not banned' : <Time value={account.banned_until} />}</dd>
    </dl>
  );
}
