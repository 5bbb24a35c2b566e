import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api } from '../api/client';
import { type GoTrueSettings, type GoTrueTokens, tokensFromFragment } from '../api/gotrue';
import { describeProblem } from '../api/problems';
import { sessionFromToken, sessionStore } from '../api/session';
import { GoTrueForms } from './gotrue-forms';
import { TokenForm } from './token-form';

/** Where to go after signing in: a page of the console only (never another site). */
function nextPage(search: string): string {
  const next = new URLSearchParams(search).get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}

/** What the address's fragment brought (a development link's code, a magic link's tokens), read once and removed. */
function takeFragment(): URLSearchParams {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  if (window.location.hash !== '')
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return fragment;
}

export function SignInPage() {
  const [, navigate] = useLocation();
  const search = useSearch();
  const config = useQuery({
    queryKey: ['console', 'config'],
    queryFn: () => unwrap(api.GET('/v1/console/config')),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fragment = useRef<URLSearchParams | undefined>(undefined);
  fragment.current ??= takeFragment();

  /** Begins the session for a token and goes where the person was headed. */
  const begin = (token: string, gotrue?: { settings: GoTrueSettings; tokens: GoTrueTokens }) => {
    const session = sessionFromToken(token);
    if (session === undefined) {
      setError('That is not a current access token (a JWT with sub and a future exp).');
      return;
    }
    sessionStore.begin(
      gotrue === undefined
        ? session
        : { ...session, renewal: { ...gotrue.settings, refreshToken: gotrue.tokens.refreshToken } },
    );
    navigate(nextPage(search), { replace: true });
  };

  const signIn = config.data?.signIn;
  // A development link (`npm start` prints it): exchange its single-use code, once.
  useEffect(() => {
    const code = fragment.current?.get('code');
    if (code === undefined || code === null) return;
    fragment.current?.delete('code');
    setBusy(true);
    unwrap(api.POST('/v1/console/sign-in', { body: { code } }))
      .then((answer) => begin(answer.accessToken))
      .catch((failure: unknown) => setError(describeProblem(failure).message))
      .finally(() => setBusy(false));
  });
  // A magic link's return: the identity provider's tokens in the fragment.
  useEffect(() => {
    if (signIn?.method !== 'gotrue' || fragment.current === undefined) return;
    const tokens = tokensFromFragment(fragment.current.toString());
    if (tokens === undefined) return;
    fragment.current = new URLSearchParams();
    begin(tokens.accessToken, { settings: { url: signIn.url, anonKey: signIn.anonKey }, tokens });
  });

  return (
    <main className="sign-in" id="main">
      <h1>Platform console</h1>
      {busy ? <p role="status">Signing you in…</p> : null}
      {error === undefined ? null : (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {signIn?.method === 'gotrue' ? (
        <GoTrueForms
          settings={{ url: signIn.url, anonKey: signIn.anonKey }}
          onSignedIn={(settings, tokens) => begin(tokens.accessToken, { settings, tokens })}
          onError={setError}
        />
      ) : null}
      {signIn?.method === 'dev_link' ? (
        <p>
          This service runs in development mode: open the sign-in link <code>npm start</code> printed. Each link works
          once; restart the service for another, or paste a token below (
          <code>npm run cli -- token --sub &lt;id&gt;</code>).
        </p>
      ) : null}
      {signIn === undefined || signIn.method !== 'gotrue' ? <TokenForm onToken={(token) => begin(token)} /> : null}
    </main>
  );
}
