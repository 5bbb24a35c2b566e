import DOMPurify from 'dompurify';
import { useMemo } from 'react';

/**
 * An email's HTML body as a reader would see its content: cleaned by DOMPurify (no script, handler,
 * frame or form) and without its own styles (`style` attributes and elements), which the console's
 * Content-Security-Policy would refuse anyway. Links open in a new tab, never in the console.
 */
export function EmailHtml({ html, label }: { html: string; label: string }) {
  const clean = useMemo(() => {
    const fragment = DOMPurify.sanitize(html, {
      FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
      FORBID_ATTR: ['style'],
      RETURN_DOM_FRAGMENT: true,
    });
    for (const link of fragment.querySelectorAll('a')) {
      link.setAttribute('target', '_blank');
      link.setAttribute('rel', 'noopener noreferrer');
    }
    const holder = document.createElement('div');
    holder.append(fragment);
    return holder.innerHTML;
  }, [html]);
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify just above
    <article className="email-html" aria-label={label} dangerouslySetInnerHTML={{ __html: clean }} />
  );
}

/** A plain-text body as it is, wrapped (named by the heading or label above it). */
export function EmailText({ text }: { text: string }) {
  return <pre className="email-text">{text}</pre>;
}
