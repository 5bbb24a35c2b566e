import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { useWrite } from '../../api/writes';
import { Confirm } from '../../ui/confirm';
import { ProblemNote } from '../../ui/problem-note';
import { Time } from '../../ui/time';
import { CONTROLLER_SUPPORT, GAME_TYPES, type Game, GameDialog, STATUSES } from './game-form';
import { StoreNav } from './store-nav';
import { useTermNames } from './term-picker';
import { TERM_KINDS, TERM_WORDS, type TermKind } from './terms-api';

const NEEDS_WRITE = 'Needs store.write';
const labelOf = (choices: { id: string; label: string }[], id: string) =>
  choices.find((choice) => choice.id === id)?.label ?? id;
const orNone = (text: string | null) => (text === null || text === '' ? <span className="muted">—</span> : text);

/** One store game: every field, its genres, developers and publishers by name; publish, edit, delete. */
export default function GamePage({ id }: { id: string }) {
  const game = useQuery({
    queryKey: ['store', 'games', 'one', id],
    queryFn: () => unwrap(api.GET('/v1/admin/store/games/{id}', { params: { path: { id: Number(id) } } })),
  });
  const data = game.data;
  return (
    <section className="stack">
      <h1>{data?.title ?? 'Store game'}</h1>
      <StoreNav />
      <p>
        <Link href="/store">← Games</Link>
      </p>
      {game.error === null ? null : <ProblemNote error={game.error} />}
      {data === undefined ? null : <GameRecord game={data} />}
    </section>
  );
}

function GameRecord({ game }: { game: Game }) {
  const canWrite = usePermissions().can('store.write');
  const [editing, setEditing] = useState(false);
  const [, navigate] = useLocation();
  const names: Record<TermKind, ReturnType<typeof useTermNames>> = {
    genres: useTermNames('genres'),
    developers: useTermNames('developers'),
    publishers: useTermNames('publishers'),
  };
  const publish = useWrite({
    call: () =>
      unwrap(
        api.PATCH('/v1/admin/store/games/{id}', { params: { path: { id: game.id } }, body: { status: 'published' } }),
      ),
    success: `${game.title} is published: it shows in the public store`,
    failure: 'Could not publish the game',
    invalidates: [['store']],
  });
  const links = TERM_KINDS.reduce((count, kind) => count + game[TERM_WORDS[kind].linkField].length, 0);

  return (
    <>
      <div className="button-row">
        {game.status === 'published' ? null : (
          <Button
            className="btn btn-primary"
            isDisabled={!canWrite || publish.isPending}
            onPress={() => publish.mutate()}
          >
            {publish.isPending ? 'Publishing…' : 'Publish'}
          </Button>
        )}
        <Button className="btn" isDisabled={!canWrite} onPress={() => setEditing(true)}>
          Edit…
        </Button>
        <Confirm
          trigger="Delete…"
          destructive
          isDisabled={!canWrite}
          disabledReason={canWrite ? undefined : NEEDS_WRITE}
          title={`Delete ${game.title}?`}
          consequence={
            <>
              <p>
                {game.status === 'published'
                  ? `${game.title} leaves the public store at once: its page at /${game.slug} stops answering.`
                  : `${game.title} is not in the public store (${game.status}).`}{' '}
                Its texts, metadata and its {links === 1 ? 'link' : `${links} links`} to genres, developers and
                publishers are deleted; the genres, developers and publishers themselves stay.
              </p>
              <p>This cannot be undone.</p>
            </>
          }
          confirmLabel="Delete game"
          write={{
            call: () => unwrap(api.DELETE('/v1/admin/store/games/{id}', { params: { path: { id: game.id } } })),
            success: `${game.title} deleted`,
            failure: 'Could not delete the game',
            onDone: () => navigate('/store', { replace: true }),
          }}
        />
        {canWrite ? null : <span className="hint">{NEEDS_WRITE}</span>}
      </div>
      <dl className="facts">
        <dt>Publish state</dt>
        <dd>{labelOf(STATUSES, game.status)}</dd>
        <dt>Slug</dt>
        <dd>
          <code>{game.slug}</code>
        </dd>
        <dt>Type</dt>
        <dd>{labelOf(GAME_TYPES, game.game_type)}</dd>
        {TERM_KINDS.map((kind) => (
          <TermFacts key={kind} kind={kind} ids={game[TERM_WORDS[kind].linkField]} nameOf={names[kind].nameOf} />
        ))}
        <dt>Summary</dt>
        <dd>{orNone(game.summary)}</dd>
        <dt>Description</dt>
        <dd className="full-text">{orNone(game.description)}</dd>
        <dt>Release date</dt>
        <dd>{orNone(game.release_date)}</dd>
        <dt>Controller support</dt>
        <dd>{labelOf(CONTROLLER_SUPPORT, game.controller_support)}</dd>
        <dt>Required age</dt>
        <dd>{game.required_age === 0 ? 'Any age' : `${game.required_age}+`}</dd>
        <dt>Website</dt>
        <dd>
          {game.website === null ? (
            orNone(null)
          ) : (
            <a href={game.website} target="_blank" rel="noreferrer noopener">
              {game.website}
            </a>
          )}
        </dd>
        <dt>Licence required</dt>
        <dd>{game.license_required ? 'Yes' : 'No'}</dd>
        <dt>Content description</dt>
        <dd>{orNone(game.content_description)}</dd>
        <dt>Legal notice</dt>
        <dd className="full-text">{orNone(game.legal_notice)}</dd>
        <dt>Metadata</dt>
        <dd>
          {Object.keys(game.metadata).length === 0 ? (
            orNone(null)
          ) : (
            <pre className="json">{JSON.stringify(game.metadata, null, 2)}</pre>
          )}
        </dd>
        <dt>Created</dt>
        <dd>
          <Time value={game.created_at} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time value={game.updated_at} />
        </dd>
      </dl>
      {editing ? <GameDialog game={game} onClose={() => setEditing(false)} /> : null}
    </>
  );
}

function TermFacts({ kind, ids, nameOf }: { kind: TermKind; ids: number[]; nameOf: (id: number) => string }) {
  const words = TERM_WORDS[kind];
  return (
    <>
      <dt>{words.title}</dt>
      <dd>
        {ids.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="game-links">
            {ids.map((id) => (
              <li key={id}>
                <Link href={`/store?${words.filter}=${id}`}>{nameOf(id)}</Link>
              </li>
            ))}
          </ul>
        )}
      </dd>
    </>
  );
}
