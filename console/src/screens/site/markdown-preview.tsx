import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

/**
 * A page's markdown as the sites will render it: parsed by marked, then cleaned by DOMPurify, so
 * a page can hold no script, handler or frame (markdown lets raw HTML through).
 */
export function MarkdownPreview({ markdown, label }: { markdown: string; label: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(markdown, { async: false })), [markdown]);
  return (
    // biome-ignore lint/security/noDangerouslySetInnerHtml: sanitized by DOMPurify just above
    <article className="markdown-preview" aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
