import { type FormEvent, useState } from 'react';
import { Button, Form } from 'react-aria-components';
import { TextInput } from '../ui/fields';

/** Sign in with an access token the identity provider (or `platform-api token`) issued. */
export function TokenForm({ onToken }: { onToken: (token: string) => void }) {
  const [token, setToken] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onToken(token);
  };
  return (
    <Form onSubmit={submit} className="stack">
      <TextInput label="Access token" name="token" value={token} onChange={setToken} isRequired multiline />
      <Button type="submit" className="btn btn-primary">
        Sign in with token
      </Button>
    </Form>
  );
}
