import { type ListBody, type ListItem, unwrap } from '@platform-api/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  Heading,
  Input,
  Label,
  Modal,
  ModalOverlay,
  SearchField,
} from 'react-aria-components';
import { Link } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useSearchState } from '../../api/search-state';
import { Confirm } from '../../ui/confirm';
import { DataTable } from '../../ui/data-table';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import './storage.css';

type StoredObject = ListItem<ListBody<'/v1/admin/storage/objects'>>;
type Row = StoredObject & { id: string };

const FILTERS = ['prefix', 'offset'] as const;
const LIMIT = 100;
/** The API's highest offset (S3 lists have none: each page walks the keys before it). */
const MAX_OFFSET = 10_000;
/** The API's prefix rule: letters, digits, `.`, `_`, `-` and `/`. */
const PREFIX = /^[A-Za-z0-9._\-/]*$/;
const NEEDS_WRITE = 'Needs storage.write';

const bytes = (size: number) =>
  size < 1024
    ? `${size} B`
    : size < 1024 * 1024
      ? `${(size / 1024).toFixed(1)} KiB`
      : `${(size / 1024 / 1024).toFixed(1)} MiB`;

/** The folder part of a prefix ("avatars/ab/" of "avatars/ab/x"). */
const folderOf = (prefix: string) => prefix.slice(0, prefix.lastIndexOf('/') + 1);

/**
 * The object store by prefix: folders from the keys' `/` segments, breadcrumbs back up, a page of
 * objects at a time (by offset, as the API pages), a preview of images and texts, and delete.
 */
export default function ObjectsPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const permissions = usePermissions();
  const canWrite = permissions.can('storage.write');
  const prefix = filters.prefix;
  const offset = Math.min(Math.max(Number(filters.offset) || 0, 0), MAX_OFFSET);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [typed, setTyped] = useState(prefix);
  const [prefixError, setPrefixError] = useState<string | undefined>();
  const query = { prefix, limit: LIMIT, offset };
  const list = useQuery({
    queryKey: ['storage', 'objects', query],
    queryFn: () => unwrap(api.GET('/v1/admin/storage/objects', { params: { query } })),
    placeholderData: keepPreviousData,
  });
  // A new prefix (a folder, a breadcrumb, the back button): the field shows it, the selection empties.
  const [shownPrefix, setShownPrefix] = useState(prefix);
  if (shownPrefix !== prefix) {
    setShownPrefix(prefix);
    setTyped(prefix);
    setPrefixError(undefined);
    setSelected(new Set());
  }
  const go = (next: string) => setFilters({ prefix: next, offset: '' });

  const folder = folderOf(prefix);
  const objects = list.data?.data ?? [];
  const folders = [
    ...new Set(
      objects
        .map((object) => object.key.slice(folder.length))
        .filter((rest) => rest.includes('/'))
        .map((rest) => `${folder}${rest.slice(0, rest.indexOf('/') + 1)}`),
    ),
  ];
  const rows: Row[] = objects.map((object) => ({ ...object, id: object.key }));
  const crumbs = folder
    .split('/')
    .filter((part) => part !== '')
    .map((part, index, parts) => ({ label: part, prefix: `${parts.slice(0, index + 1).join('/')}/` }));
  const lastPage = objects.length < LIMIT;

  return (
    <section className="stack">
      <h1>Storage</h1>
      <nav aria-label="Folder" className="storage-crumbs">
        <ol>
          <li>
            {prefix === '' ? <span aria-current="page">All objects</span> : <Link href="/storage">All objects</Link>}
          </li>
          {crumbs.map((crumb) => (
            <li key={crumb.prefix}>
              {crumb.prefix === prefix ? (
                <span aria-current="page">{crumb.label}</span>
              ) : (
                <Link href={`/storage?prefix=${encodeURIComponent(crumb.prefix)}`}>{crumb.label}</Link>
              )}
            </li>
          ))}
        </ol>
      </nav>
      <form className="filters" aria-label="Find objects" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field field-wide"
          value={typed}
          onChange={(value) => {
            setTyped(value);
            setPrefixError(undefined);
          }}
          onSubmit={(value) => {
            const wanted = value.trim();
            if (!PREFIX.test(wanted)) setPrefixError('Letters, digits, ., _, - and / only');
            else go(wanted);
          }}
          onClear={() => go('')}
          isInvalid={prefixError !== undefined}
        >
          <Label>Keys starting with</Label>
          <Input placeholder="avatars/ — press Enter" />
          {prefixError === undefined ? null : (
            <span className="error" role="alert">
              {prefixError}
            </span>
          )}
        </SearchField>
      </form>

      {list.error === null ? null : <ProblemNote error={list.error} />}
      {folders.length === 0 ? null : (
        <>
          <h2>Folders</h2>
          <p className="hint">Among the keys on this page.</p>
          <ul className="storage-folders" aria-label="Folders">
            {folders.map((each) => (
              <li key={each}>
                <Link className="btn" href={`/storage?prefix=${encodeURIComponent(each)}`}>
                  {each.slice(folder.length)}
                </Link>
              </li>
            ))}
          </ul>
        </>
      )}

      <header className="page-header">
        <h2>Objects</h2>
        {selected.size === 0 ? null : (
          <DeleteObjects keys={[...selected]} canWrite={canWrite} onDone={() => setSelected(new Set())} />
        )}
      </header>
      <DataTable<Row>
        label={prefix === '' ? 'Objects' : `Objects under ${prefix}`}
        items={rows}
        emptyText={
          list.isPending ? 'Loading…' : offset > 0 ? 'No more objects.' : 'No object has a key starting with this.'
        }
        selectedKeys={selected}
        onSelectionChange={setSelected}
        columns={[
          {
            id: 'key',
            name: 'Key',
            isRowHeader: true,
            render: (object) => (
              <span className="storage-key" title={object.key}>
                {object.key.startsWith(folder) ? object.key.slice(folder.length) : object.key}
              </span>
            ),
          },
          { id: 'size', name: 'Size', render: (object) => bytes(object.size) },
          { id: 'type', name: 'Type', render: (object) => object.content_type ?? <span className="muted">—</span> },
          { id: 'modified', name: 'Modified', render: (object) => <Time value={object.last_modified} /> },
          {
            id: 'actions',
            name: 'Actions',
            render: (object) => (
              <div className="button-row">
                <Preview objectKey={object.key} />
                <DeleteObjects keys={[object.key]} canWrite={canWrite} onDone={() => setSelected(new Set())} />
              </div>
            ),
          },
        ]}
      />
      <nav className="pager" aria-label="Pages">
        <Button
          className="btn"
          isDisabled={offset === 0}
          onPress={() => setFilters({ offset: String(Math.max(0, offset - LIMIT)) })}
        >
          Previous
        </Button>
        <span>
          {objects.length === 0 ? 'No objects' : `Objects ${offset + 1} to ${offset + objects.length}`}
          {lastPage ? '' : ' · more follow'}
        </span>
        <Button
          className="btn"
          isDisabled={lastPage || offset + LIMIT > MAX_OFFSET}
          onPress={() => setFilters({ offset: String(offset + LIMIT) })}
        >
          Next
        </Button>
      </nav>
      {offset + LIMIT > MAX_OFFSET && !lastPage ? (
        <p className="hint">The store pages no further than {MAX_OFFSET} keys: narrow the prefix to see the rest.</p>
      ) : null}
    </section>
  );
}

/** An image or the start of a text, read through the API when opened (no signed URL reaches the page). */
function Preview({ objectKey }: { objectKey: string }) {
  const name = objectKey.slice(objectKey.lastIndexOf('/') + 1);
  return (
    <DialogTrigger>
      <Button className="btn btn-quiet" aria-label={`Preview ${name}`}>
        Preview
      </Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal modal-wide">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title" className="storage-key">
                  {objectKey}
                </Heading>
                <PreviewBody objectKey={objectKey} />
                <div className="dialog-actions">
                  <Button className="btn" onPress={close}>
                    Close
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function PreviewBody({ objectKey }: { objectKey: string }) {
  const preview = useQuery({
    queryKey: ['storage', 'preview', objectKey],
    queryFn: () => unwrap(api.GET('/v1/admin/storage/objects/preview', { params: { query: { key: objectKey } } })),
    // Bytes of an object: not kept once the dialog closes.
    gcTime: 0,
    retry: false,
  });
  if (preview.error !== null) return <ProblemNote error={preview.error} />;
  if (preview.data === undefined) return <p className="loading">Loading the preview…</p>;
  const shown = preview.data;
  return (
    <>
      <p className="hint">
        {shown.content_type} · {bytes(shown.size)}
        {shown.truncated ? ' · only its start is shown' : ''}
      </p>
      {shown.kind === 'image' ? (
        <img
          className="storage-preview-image"
          src={`data:${shown.content_type};base64,${shown.content}`}
          alt={`Preview of ${objectKey}`}
        />
      ) : (
        <section aria-label={`Text of ${objectKey}`}>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling text must be reachable by keyboard to scroll. */}
          <pre className="storage-preview-text" tabIndex={0}>
            {shown.content}
          </pre>
        </section>
      )}
    </>
  );
}

/** Deletes one object or the selected ones, after a confirmation naming each. */
function DeleteObjects({ keys, canWrite, onDone }: { keys: string[]; canWrite: boolean; onDone: () => void }) {
  const queryClient = useQueryClient();
  const one = keys.length === 1;
  return (
    <Confirm<string[]>
      trigger={one ? 'Delete…' : `Delete ${keys.length} selected…`}
      destructive
      isDisabled={!canWrite}
      disabledReason={canWrite ? undefined : NEEDS_WRITE}
      title={one ? `Delete ${keys[0]}?` : `Delete these ${keys.length} objects?`}
      consequence={
        <>
          <ul className="storage-delete-list">
            {keys.map((key) => (
              <li key={key}>
                <code className="storage-key">{key}</code>
              </li>
            ))}
          </ul>
          <p>
            {one ? 'It is' : 'They are'} gone from the store for good: a link to {one ? 'it' : 'them'} stops working,
            and a player whose avatar {one ? 'it is' : 'one is'} loses that avatar. This cannot be undone.
          </p>
        </>
      }
      confirmLabel={one ? 'Delete object' : `Delete ${keys.length} objects`}
      write={{
        call: async () => {
          const deleted: string[] = [];
          try {
            for (const key of keys) {
              await unwrap(api.DELETE('/v1/admin/storage/objects', { params: { query: { key } } }));
              deleted.push(key);
            }
          } finally {
            // Those deleted before a refusal are gone whatever came after: the list shows it.
            if (deleted.length > 0 && deleted.length < keys.length)
              await queryClient.invalidateQueries({ queryKey: ['storage', 'objects'] });
          }
          return deleted;
        },
        success: (deleted) => (deleted.length === 1 ? `Deleted ${deleted[0]}` : `Deleted ${deleted.length} objects`),
        failure: 'Could not delete',
        invalidates: [['storage', 'objects']],
        onDone,
      }}
    />
  );
}
