import { escapeHtml } from '../../../lib/html.js';

/**
 * The small HTML pages of the unsubscribe link. They show the address the link was made for,
 * partly masked (a forwarded mail or a shoulder must not give the whole address away), and
 * never anything looked up: whether the address is known or already unsubscribed is not said.
 */

const UNSUBSCRIBE_PATH = '/v1/public/email/unsubscribe';

/** `jane.doe@example.com` → `ja******@example.com`: enough for its owner to recognise it. */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '*'.repeat(Math.min(email.length, 8));
  const local = email.slice(0, at);
  const shown = local.length <= 2 ? local.slice(0, 1) : local.slice(0, 2);
  return `${shown}${'*'.repeat(Math.max(3, Math.min(local.length - shown.length, 12)))}${email.slice(at)}`;
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 \
1rem;line-height:1.5}button{font-size:1rem;padding:.6rem 1.2rem;cursor:pointer}</style>
</head><body><main>
${body}
</main></body></html>`;
}

export function confirmPage(email: string, token: string): string {
  const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}`;
  return layout(
    'Unsubscribe',
    `<h1>Unsubscribe from marketing email</h1>
<p><strong>${escapeHtml(maskedAddress(email))}</strong> will get no more marketing email from us: news, offers and \
announcements.</p>
<p>Mail about your account (receipts, security notices) still arrives.</p>
<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`,
  );
}

export function donePage(email: string): string {
  return layout(
    'Unsubscribed',
    `<h1>You are unsubscribed</h1>
<p><strong>${escapeHtml(maskedAddress(email))}</strong> will get no more marketing email from us, starting now.</p>`,
  );
}

export function invalidLinkPage(): string {
  return layout(
    'Link not valid',
    `<h1>This unsubscribe link is not valid</h1>
<p>It may have been cut or changed when it was copied. Use the unsubscribe link of the latest email you got from \
us.</p>`,
  );
}

/** What every unsubscribe page answer carries: never cached, never indexed, the token never sent on as a referrer. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};
