import { type paths, unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link, Redirect } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { DataTable } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { SiteNav } from './site-nav';

export type Section =
  paths['/v1/admin/site/settings']['get']['responses'][200]['content']['application/json']['data'][number];

export const SECTIONS_QUERY_KEY = ['site', 'settings'];

export function useSections(enabled = true) {
  return useQuery({ queryKey: SECTIONS_QUERY_KEY, queryFn: () => unwrap(api.GET('/v1/admin/site/settings')), enabled });
}

/** Every settings section: what is live, and whether its draft holds unpublished changes. */
export default function SettingsSectionsPage() {
  const permissions = usePermissions();
  const sections = useSections(permissions.can('site.read', 'settings.read', 'billing.read'));
  // Site is also the area of staff who edit content blocks or announcements only.
  if (permissions.data !== undefined && !permissions.can('site.read', 'settings.read', 'billing.read'))
    return (
      <Redirect
        to={permissions.can('content.read', 'content.write') ? '/site/content-blocks' : '/site/announcements'}
        replace
      />
    );
  return (
    <section className="stack">
      <h1>Site</h1>
      <SiteNav />
      {sections.error === null ? null : <ProblemNote error={sections.error} />}
      <DataTable
        label="Settings sections"
        items={(sections.data?.data ?? []).map((section) => ({ ...section, id: section.section }))}
        emptyText={sections.isPending ? 'Loading…' : 'No sections.'}
        rowHref={(section) => `/site/settings/${section.section}`}
        columns={[
          {
            id: 'section',
            name: 'Section',
            isRowHeader: true,
            render: (section) => <Link href={`/site/settings/${section.section}`}>{section.section}</Link>,
          },
          { id: 'version', name: 'Live version', render: (section) => section.published_version ?? 'never published' },
          { id: 'published', name: 'Published', render: (section) => <Time value={section.published_at} /> },
          {
            id: 'draft',
            name: 'Draft',
            render: (section) => (section.has_unpublished_changes ? 'unpublished changes' : 'as live'),
          },
          { id: 'permission', name: 'Edited with', render: (section) => <code>{section.write_permission}</code> },
        ]}
      />
    </section>
  );
}
