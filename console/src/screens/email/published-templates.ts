import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { Choice } from '../../ui/fields';

/**
 * The published templates by name, for a picker (a campaign's, a broadcast's email): what can be
 * sent, never a key typed from memory. Needs email.read; `enabled` false asks nothing.
 */
export function usePublishedTemplates(enabled = true): { choices: Choice[]; loaded: boolean } {
  const templates = useQuery({
    queryKey: ['email', 'templates', 'published-choices'],
    enabled,
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/email/templates', {
          params: { query: { published: 'true', per_page: 100, sort: 'name:asc' } },
        }),
      ),
  });
  return {
    choices: (templates.data?.data ?? []).map((template) => ({
      id: template.key,
      label: `${template.name} (${template.key}, v${template.published_version})`,
    })),
    loaded: templates.data !== undefined,
  };
}
