import { unwrap } from '@platform-api/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from 'react-aria-components';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../api/client';
import { exchangeLinkCode, type GoTrueSettings, type GoTrueTokens, GoTrueRefusal } from '../api/gotrue';
import { describeProblem } from '../api/problems';
import { type Session, sessionFromToken, sessionStore } from '../api/session';
import { GoTrueForms } from './gotrue-forms';
import { TokenForm } from './token-form';

/** Where to go after signing in: a page of the console only (never another site). */
function nextPage(search: string): string {
  const next = new URLSearchParams(search).get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') && !next.includes('\\') ? next : '/';
}

/**
 * What the address brought, read once and removed from it: a development link's code (`#code=`),
 * a magic link's code (`?code=`, GoTrue's PKCE flow), or tokens in the fragment, which are never used.
 */
interface Arrival {
  devCode: string | undefined;
  linkCode: string | undefined;
  fragmentTokens: boolean;
  /** The address without them, once they are read (undefined when it had none). */
  cleanAddress: string | undefined;
}

function readArrival(): Arrival {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const query = new URLSearchParams(window.location.search);
  const linkCode = query.get('code') ?? undefined;
  query.delete('code');
  const rest = query.toString();
  return {
    devCode: fragment.get('code') ?? undefined,
    linkCode,
    fragmentTokens: fragment.has('access_token') || fragment.has('refresh_token'),
    cleanAddress:
      window.location.hash !== '' || linkCode !== undefined
        ? window.location.pathname + (rest === '' ? '' : `?${rest}`)
        : undefined,
  };
}

const who = (session: Session) => session.email ?? session.subject;

/** What a refused magic-link code means for the person holding it. */
function linkRefusal(failure: unknown): string {
  const code = failure instanceof GoTrueRefusal ? failure.code : undefined;
  if (code === 'no_code_verifier')
    return 'This sign-in link was asked for in another tab or browser, so it does not sign you in here. Open it in the tab where you asked for it, or ask for a new link below.';
  if (code === 'bad_code_verifier')
    return 'This sign-in link was not asked for by this tab, or a newer link was asked for since. Use the newest link, in the tab that asked for it.';
  if (code === 'flow_state_not_found' || code === 'flow_state_expired')
    return 'This sign-in link was used already or has expired. Ask for a new one below.';
  return `Sign-in refused: ${(failure as Error).message}`;
}

export function SignInPage() {
  const [, navigate] = useLocation();
  const search = useSearch();
  const queryClient = useQueryClient();
  const session = useSyncExternalStore(sessionStore.subscribe, sessionStore.get);
  const config = useQuery({
    queryKey: ['console', 'config'],
    queryFn: () => unwrap(api.GET('/v1/console/config')),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const arrival = useRef<Arrival | undefined>(undefined);
  arrival.current ??= readArrival();
  // The session there was when the page opened: a link that returns then never replaces it.
  const sessionAtArrival = useRef<Session | undefined>(undefined);
  const arrived = useRef(false);
  if (!arrived.current) {
    arrived.current = true;
    sessionAtArrival.current = session;
  }

  /** Begins the session for a token and goes where the person was headed. */
  const begin = (token: string, gotrue?: { settings: GoTrueSettings; tokens: GoTrueTokens }) => {
    const next = sessionFromToken(token);
    if (next === undefined) {
      setError('That is not a current access token (a JWT with sub and a future exp).');
      return;
    }
    sessionStore.begin(
      gotrue === undefined
        ? next
        : { ...next, renewal: { ...gotrue.settings, refreshToken: gotrue.tokens.refreshToken } },
    );
    navigate(nextPage(search), { replace: true });
  };

  const signIn = config.data?.signIn;
  useEffect(() => {
    const came = arrival.current;
    if (came === undefined) return;
    // Codes and tokens leave the address bar (and the history entry) at once.
    if (came.cleanAddress !== undefined) {
      window.history.replaceState(null, '', came.cleanAddress);
      came.cleanAddress = undefined;
    }
    const signedIn = sessionAtArrival.current;
    // Tokens in an address are whatever its author put there: anyone can make such a link.
    if (came.fragmentTokens) {
      came.fragmentTokens = false;
      setError(
        `This address carried sign-in tokens, which the console never takes from an address. Nothing changed${
          signedIn === undefined ? '' : `: you are still signed in as ${who(signedIn)}`
        }.`,
      );
    }
    if (came.devCode === undefined && came.linkCode === undefined) return;
    if (signedIn !== undefined) {
      came.devCode = undefined;
      came.linkCode = undefined;
      setError(
        `A sign-in link was opened while you are signed in as ${who(signedIn)}. It was not used, and you are still signed in as ${who(signedIn)}. To sign in as someone else, sign out first, then ask for a new link.`,
      );
      return;
    }
    // A development link (`npm start` prints it): exchange its single-use code, once.
    const devCode = came.devCode;
    if (devCode !== undefined) {
      came.devCode = undefined;
      setBusy(true);
      unwrap(api.POST('/v1/console/sign-in', { body: { code: devCode } }))
        .then((answer) => begin(answer.accessToken))
        .catch((failure: unknown) => setError(describeProblem(failure).message))
        .finally(() => setBusy(false));
    }
    // A magic link's return: its code, exchanged with the verifier this tab kept when it asked.
    const linkCode = came.linkCode;
    if (linkCode !== undefined && signIn?.method === 'gotrue') {
      came.linkCode = undefined;
      const settings = { url: signIn.url, anonKey: signIn.anonKey };
      setBusy(true);
      exchangeLinkCode(settings, linkCode)
        .then((tokens) => begin(tokens.accessToken, { settings, tokens }))
        .catch((failure: unknown) => setError(linkRefusal(failure)))
        .finally(() => setBusy(false));
    }
  });

  const signOut = () => {
    void sessionStore.signOut();
    queryClient.clear();
    setError(undefined);
  };

  return (
    <main className="sign-in" id="main">
      <h1>Platform console</h1>
      {busy ? <p role="status">Signing you in…</p> : null}
      {error === undefined ? null : (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {session !== undefined && !busy ? (
        <>
          <p>
            You are signed in as <strong>{who(session)}</strong>. To sign in as someone else, sign out first.
          </p>
          <div className="button-row">
            <Link href={nextPage(search)} className="btn btn-primary">
              Continue as {who(session)}
            </Link>
            <Button className="btn" onPress={signOut}>
              Sign out
            </Button>
          </div>
        </>
      ) : null}
      {session === undefined && signIn?.method === 'gotrue' ? (
        <GoTrueForms
          settings={{ url: signIn.url, anonKey: signIn.anonKey }}
          onSignedIn={(settings, tokens) => begin(tokens.accessToken, { settings, tokens })}
          onError={setError}
        />
      ) : null}
      {session === undefined && signIn?.method === 'dev_link' ? (
        <p>
          This service runs in development mode: open the sign-in link <code>npm start</code> printed. Each link works
          once; restart the service for another, or paste a token below (
          <code>npm run cli -- token --sub &lt;id&gt;</code>).
        </p>
      ) : null}
      {session === undefined && (signIn === undefined || signIn.method !== 'gotrue') ? (
        <TokenForm onToken={(token) => begin(token)} />
      ) : null}
    </main>
  );
}
