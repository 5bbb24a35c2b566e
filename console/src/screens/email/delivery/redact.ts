/**
 * Query parameters that carry a credential: the unsubscribe link's signed token, signed storage
 * URLs (ours and S3's), access tokens and codes. Their values never show in the console: a staff
 * member reading a message must not be handed a link that acts as its recipient.
 */
const SECRET_PARAMETER =
  /([?&](?:amp;)?(?:token|sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|access_token|secret|key|code)=)[^&#\s"'<>]+/gi;

export const HIDDEN = '[hidden]';

/** The text with every credential-bearing parameter's value replaced by `[hidden]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PARAMETER, `$1${HIDDEN}`);
}

/** A message's variables with the same done to every string in them. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, redactValue(inner)]));
  return value;
}
