import { type ListBody, type ListItem, type operations, unwrap } from '@platform-api/sdk';
import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Input, Label, SearchField } from 'react-aria-components';
import { useLocation } from 'wouter';
import { api } from '../../api/client';
import { usePermissions } from '../../api/permissions';
import { presentValues, useSearchState } from '../../api/search-state';
import { ChoiceInput } from '../../ui/fields';
import { PagedTable, usePagedQuery } from '../../ui/paged-table';
import { Time } from '../../ui/time';
import { GAME_TYPES, GameDialog, STATUSES } from './game-form';
import { StoreNav } from './store-nav';
import { useTermNames } from './term-picker';
import { TERM_KINDS, TERM_WORDS } from './terms-api';

type Game = ListItem<ListBody<'/v1/admin/store/games'>>;
type GameRow = Game & { genreNames: string; developerNames: string };
type GamesQuery = NonNullable<operations['listStoreGames']['parameters']['query']>;

const FILTERS = ['q', 'status', 'game_type', 'genre_id', 'developer_id', 'publisher_id', 'sort', 'page'] as const;
const PER_PAGE = 25;
const statusLabel = (status: string) => STATUSES.find((each) => each.id === status)?.label.split(' (')[0] ?? status;

/** The store's games, every publish state: find, filter by state, type and linked term, create. */
export default function GamesPage() {
  const [filters, setFilters] = useSearchState(FILTERS);
  const canWrite = usePermissions().can('store.write');
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const page = Number(filters.page || '1');
  const [field, direction] = (filters.sort || 'created_at:desc').split(':') as [string, 'asc' | 'desc'];
  const query = {
    ...presentValues({
      q: filters.q,
      status: filters.status,
      game_type: filters.game_type,
    }),
    ...Object.fromEntries(
      (['genre_id', 'developer_id', 'publisher_id'] as const)
        .filter((key) => filters[key] !== '')
        .map((key) => [key, Number(filters[key])]),
    ),
    sort: `${field}:${direction}`,
    page,
    per_page: PER_PAGE,
  } as GamesQuery;
  const games = usePagedQuery(['store', 'games', query], () =>
    unwrap(api.GET('/v1/admin/store/games', { params: { query } })),
  );
  const names = {
    genres: useTermNames('genres'),
    developers: useTermNames('developers'),
    publishers: useTermNames('publishers'),
  };
  // The table keeps a row as long as its item is the same object: the names, once read, make new rows.
  const named = games.data?.data.map((game) => ({
    ...game,
    genreNames: game.genre_ids.map(names.genres.nameOf).join(', '),
    developerNames: game.developer_ids.map(names.developers.nameOf).join(', '),
  }));
  const rows = {
    ...games,
    data: games.data === undefined || named === undefined ? undefined : { ...games.data, data: named },
  } as UseQueryResult<{ data: GameRow[]; meta: { total: number } }>;
  const filtered = FILTERS.some((key) => key !== 'sort' && key !== 'page' && filters[key] !== '');

  return (
    <section className="stack">
      <h1>Store</h1>
      <StoreNav />
      <header className="page-header">
        <h2>Games</h2>
        <Button className="btn btn-primary" isDisabled={!canWrite} onPress={() => setCreating(true)}>
          New game…
        </Button>
        {canWrite ? null : <span className="hint">Needs store.write</span>}
      </header>
      <form className="filters" aria-label="Filter games" onSubmit={(event) => event.preventDefault()}>
        <SearchField
          className="field"
          defaultValue={filters.q}
          onSubmit={(value) => setFilters({ q: value.trim() })}
          onClear={() => setFilters({ q: '' })}
        >
          <Label>Title or slug contains</Label>
          <Input placeholder="Press Enter to search" />
        </SearchField>
        <ChoiceInput
          label="Publish state"
          value={filters.status}
          choices={[{ id: '', label: 'Any' }, ...STATUSES]}
          onChange={(status) => setFilters({ status })}
        />
        <ChoiceInput
          label="Type"
          value={filters.game_type}
          choices={[{ id: '', label: 'Any' }, ...GAME_TYPES]}
          onChange={(game_type) => setFilters({ game_type })}
        />
        {TERM_KINDS.map((kind) => {
          const key = TERM_WORDS[kind].filter;
          const known = names[kind].list.data ?? [];
          const current = filters[key];
          const choices = [
            { id: '', label: 'Any' },
            ...known.map((term) => ({ id: String(term.id), label: term.name })),
            ...(current !== '' && !known.some((term) => String(term.id) === current)
              ? [{ id: current, label: names[kind].nameOf(Number(current)) }]
              : []),
          ];
          return (
            <ChoiceInput
              key={kind}
              label={TERM_WORDS[kind].noun[0]?.toUpperCase() + TERM_WORDS[kind].noun.slice(1)}
              value={current}
              choices={choices}
              onChange={(id) => setFilters({ [key]: id })}
            />
          );
        })}
      </form>
      <PagedTable<GameRow>
        label="Games"
        list={rows}
        page={page}
        perPage={PER_PAGE}
        onPage={(next) => setFilters({ page: String(next) })}
        sort={{ field, direction }}
        onSortChange={(sort) => setFilters({ sort: `${sort.field}:${sort.direction}` })}
        rowHref={(game) => `/store/games/${game.id}`}
        emptyText={filtered ? 'No game matches these filters.' : 'No games yet.'}
        columns={[
          { id: 'title', name: 'Title', sortField: 'title', isRowHeader: true, render: (game) => game.title },
          { id: 'status', name: 'Publish state', render: (game) => statusLabel(game.status) },
          {
            id: 'genres',
            name: 'Genres',
            render: (game) => game.genreNames || '—',
          },
          {
            id: 'developers',
            name: 'Developers',
            render: (game) => game.developerNames || '—',
          },
          {
            id: 'release',
            name: 'Release',
            sortField: 'release_date',
            render: (game) => game.release_date ?? '—',
          },
          {
            id: 'updated',
            name: 'Updated',
            sortField: 'updated_at',
            render: (game) => <Time value={game.updated_at} />,
          },
        ]}
      />
      {creating ? (
        <GameDialog onClose={() => setCreating(false)} onSaved={(game) => navigate(`/store/games/${game.id}`)} />
      ) : null}
    </section>
  );
}
