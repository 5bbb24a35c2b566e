import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { type GoTrueSettings, type GoTrueTokens, sendMagicLink, signInWithPassword } from '../api/gotrue';
import { TextInput } from '../ui/fields';

interface GoTrueFormsProps {
  settings: GoTrueSettings;
  onSignedIn: (settings: GoTrueSettings, tokens: GoTrueTokens) => void;
  onError: (message: string) => void;
}

/** Email and password, or a sign-in link by email, at the identity provider. */
export function GoTrueForms({ settings, onSignedIn, onError }: GoTrueFormsProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [linkSent, setLinkSent] = useState(false);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      onError(`Sign-in refused: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const withPassword = (event: FormEvent) => {
    event.preventDefault();
    void attempt(async () => onSignedIn(settings, await signInWithPassword(settings, email.trim(), password)));
  };
  const withLink = () =>
    attempt(async () => {
      await sendMagicLink(settings, email.trim(), `${window.location.origin}/admin/sign-in${window.location.search}`);
      setLinkSent(true);
    });

  return (
    <Form onSubmit={withPassword} className="stack" aria-label="Sign in">
      <TextInput label="Email" name="email" type="email" value={email} onChange={setEmail} isRequired autoFocus />
      <TextInput label="Password" name="password" type="password" value={password} onChange={setPassword} />
      <div className="button-row">
        <Button type="submit" className="btn btn-primary" isDisabled={busy || password === ''}>
          Sign in
        </Button>
        <Button className="btn" isDisabled={busy || email.trim() === ''} onPress={() => void withLink()}>
          Email me a sign-in link
        </Button>
      </div>
      {linkSent ? (
        <p role="status">
          If {email.trim()} belongs to a staff account, a sign-in link is on its way. It works only in this tab: open it
          here (paste it into this tab's address bar).
        </p>
      ) : null}
    </Form>
  );
}
