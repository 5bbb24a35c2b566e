import { type ListBody, type operations, unwrap } from '@platform-api/sdk';
import { useState } from 'react';
import { Switch } from 'react-aria-components';
import { api } from '../../api/client';
import { ruleOf } from '../../api/field-rules';
import { ChoiceInput, TextInput } from '../../ui/fields';
import { FormDialog } from '../../ui/form-dialog';
import { storeIssues } from './store-issues';
import { TermPicker } from './term-picker';
import { TERM_KINDS, TERM_WORDS } from './terms-api';

export type Game = ListBody<'/v1/admin/store/games/{id}'>;
type CreateBody = operations['createStoreGame']['requestBody']['content']['application/json'];
type UpdateBody = operations['updateStoreGame']['requestBody']['content']['application/json'];

const CREATE = 'POST /v1/admin/store/games';

export const STATUSES = [
  { id: 'draft', label: 'Draft (not in the store)' },
  { id: 'published', label: 'Published (in the store)' },
  { id: 'hidden', label: 'Hidden (taken off the store)' },
];
export const GAME_TYPES = [
  { id: 'game', label: 'Game' },
  { id: 'app', label: 'App' },
  { id: 'launcher', label: 'Launcher' },
];
export const CONTROLLER_SUPPORT = [
  { id: 'none', label: 'None' },
  { id: 'partial', label: 'Partial' },
  { id: 'full', label: 'Full' },
];

const TEXT_FIELDS = ['summary', 'description', 'website', 'legal_notice', 'content_description'] as const;
type TextField = (typeof TEXT_FIELDS)[number];

interface GameDraft extends Record<TextField, string> {
  slug: string;
  title: string;
  game_type: string;
  status: string;
  release_date: string;
  controller_support: string;
  required_age: string;
  license_required: boolean;
  metadata: string;
  genre_ids: number[];
  developer_ids: number[];
  publisher_ids: number[];
}

function draftOf(game: Game | undefined): GameDraft {
  return {
    slug: game?.slug ?? '',
    title: game?.title ?? '',
    summary: game?.summary ?? '',
    description: game?.description ?? '',
    website: game?.website ?? '',
    legal_notice: game?.legal_notice ?? '',
    content_description: game?.content_description ?? '',
    game_type: game?.game_type ?? 'game',
    status: game?.status ?? 'draft',
    release_date: game?.release_date ?? '',
    controller_support: game?.controller_support ?? 'none',
    required_age: String(game?.required_age ?? 0),
    license_required: game?.license_required ?? false,
    metadata: JSON.stringify(game?.metadata ?? {}, null, 2),
    genre_ids: game?.genre_ids ?? [],
    developer_ids: game?.developer_ids ?? [],
    publisher_ids: game?.publisher_ids ?? [],
  };
}

/** "Starfall: Director's Cut" → "starfall-director-s-cut" (the API's slug pattern). */
export function slugFromTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 128)
    .replace(/-+$/, '');
}

/** The metadata text as the object the API takes, or what is wrong with it. */
function metadataOf(text: string): { value?: Record<string, unknown>; problem?: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { problem: 'Metadata must be a JSON object, such as {"engine": "Godot"}' };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}

const sameIds = (a: number[], b: number[]) =>
  a.length === b.length && [...a].sort().every((id, index) => id === [...b].sort()[index]);

/** The whole game for a create: empty optional texts left out. */
function createBodyOf(draft: GameDraft): CreateBody {
  const texts = Object.fromEntries(
    TEXT_FIELDS.filter((field) => draft[field].trim() !== '').map((field) => [field, draft[field].trim()]),
  );
  return {
    slug: draft.slug.trim(),
    title: draft.title.trim(),
    ...texts,
    game_type: draft.game_type as CreateBody['game_type'],
    status: draft.status as CreateBody['status'],
    ...(draft.release_date.trim() === '' ? {} : { release_date: draft.release_date.trim() }),
    controller_support: draft.controller_support as CreateBody['controller_support'],
    required_age: Number(draft.required_age),
    license_required: draft.license_required,
    metadata: metadataOf(draft.metadata).value ?? {},
    genre_ids: draft.genre_ids,
    developer_ids: draft.developer_ids,
    publisher_ids: draft.publisher_ids,
  };
}

/** Only what changed (operation 20): an emptied text is `null`, an untouched link list is left out. */
export function changesOf(game: Game, draft: GameDraft): UpdateBody {
  const before = draftOf(game);
  const changes: Record<string, unknown> = {};
  for (const field of ['slug', 'title', 'game_type', 'status', 'controller_support'] as const)
    if (draft[field].trim() !== before[field]) changes[field] = draft[field].trim();
  for (const field of [...TEXT_FIELDS, 'release_date'] as const)
    if (draft[field].trim() !== before[field]) changes[field] = draft[field].trim() === '' ? null : draft[field].trim();
  if (Number(draft.required_age) !== game.required_age) changes.required_age = Number(draft.required_age);
  if (draft.license_required !== game.license_required) changes.license_required = draft.license_required;
  const metadata = metadataOf(draft.metadata).value;
  if (metadata !== undefined && JSON.stringify(metadata) !== JSON.stringify(game.metadata)) changes.metadata = metadata;
  for (const kind of TERM_KINDS) {
    const field = TERM_WORDS[kind].linkField;
    if (!sameIds(draft[field], game[field])) changes[field] = draft[field];
  }
  return changes as UpdateBody;
}

interface GameDialogProps {
  /** The game to edit; none for a new one. */
  game?: Game;
  onClose: () => void;
  onSaved?: (game: Game) => void;
}

/** A game's every field the API takes, in one form: a new game, or the changes to one. */
export function GameDialog({ game, onClose, onSaved }: GameDialogProps) {
  const [draft, setDraft] = useState(() => draftOf(game));
  const [slugTouched, setSlugTouched] = useState(game !== undefined);
  const set =
    <Key extends keyof GameDraft>(key: Key) =>
    (value: GameDraft[Key]) =>
      setDraft((current) => ({ ...current, [key]: value }));
  const rule = (field: string) => ruleOf(CREATE, field);
  const metadata = metadataOf(draft.metadata);
  const changes = game === undefined ? undefined : changesOf(game, draft);
  const nothingChanged = changes !== undefined && Object.keys(changes).length === 0;

  return (
    <FormDialog<Game>
      title={game === undefined ? 'New game' : `Edit ${game.title}`}
      submitLabel={game === undefined ? 'Create game' : 'Save changes'}
      wide
      onClose={onClose}
      canSubmit={metadata.problem === undefined && !nothingChanged}
      issuesOf={storeIssues}
      write={{
        call: () =>
          game === undefined
            ? unwrap(api.POST('/v1/admin/store/games', { body: createBodyOf(draft) }))
            : unwrap(
                api.PATCH('/v1/admin/store/games/{id}', { params: { path: { id: game.id } }, body: changes ?? {} }),
              ),
        success: (saved) => (game === undefined ? `Game ${saved.title} created` : `${saved.title} saved`),
        failure: game === undefined ? 'Could not create the game' : 'Could not save the game',
        invalidates: [['store']],
        onDone: (saved) => onSaved?.(saved),
      }}
    >
      <div className="inline-form">
        <TextInput
          label="Title"
          name="title"
          value={draft.title}
          onChange={(title) => {
            set('title')(title);
            if (!slugTouched) set('slug')(slugFromTitle(title));
          }}
          isRequired
          minLength={rule('title').minLength}
          maxLength={rule('title').maxLength}
          autoFocus
        />
        <TextInput
          label="Slug"
          name="slug"
          value={draft.slug}
          onChange={(slug) => {
            setSlugTouched(true);
            set('slug')(slug);
          }}
          isRequired
          pattern={{
            source: rule('slug').pattern ?? '[a-z0-9][a-z0-9-]{0,127}',
            hint: 'Lower-case letters, digits and -, starting with a letter or digit',
          }}
          description="The game's address in the public store."
        />
      </div>
      <div className="inline-form">
        <ChoiceInput label="Publish state" value={draft.status} choices={STATUSES} onChange={set('status')} />
        <ChoiceInput label="Type" value={draft.game_type} choices={GAME_TYPES} onChange={set('game_type')} />
        <ChoiceInput
          label="Controller support"
          value={draft.controller_support}
          choices={CONTROLLER_SUPPORT}
          onChange={set('controller_support')}
        />
      </div>
      <div className="term-pickers">
        {TERM_KINDS.map((kind) => (
          <TermPicker
            key={kind}
            kind={kind}
            value={draft[TERM_WORDS[kind].linkField]}
            onChange={set(TERM_WORDS[kind].linkField)}
          />
        ))}
      </div>
      <TextInput
        label="Summary"
        name="summary"
        value={draft.summary}
        onChange={set('summary')}
        maxLength={rule('summary').maxLength}
        multiline
      />
      <TextInput
        label="Description"
        name="description"
        value={draft.description}
        onChange={set('description')}
        maxLength={rule('description').maxLength}
        multiline
      />
      <div className="inline-form">
        <TextInput
          label="Release date"
          name="release_date"
          value={draft.release_date}
          onChange={set('release_date')}
          pattern={{ source: '\\d{4}-\\d{2}-\\d{2}', hint: 'A date as YYYY-MM-DD, such as 2026-10-15' }}
          description="YYYY-MM-DD; empty when not known."
        />
        <TextInput
          label="Required age"
          name="required_age"
          type="number"
          integer
          value={draft.required_age}
          onChange={set('required_age')}
          isRequired
          minimum={rule('required_age').minimum}
          maximum={rule('required_age').maximum}
        />
        <TextInput
          label="Website"
          name="website"
          type="url"
          value={draft.website}
          onChange={set('website')}
          maxLength={rule('website').maxLength}
          description="An http(s) address."
        />
      </div>
      <Switch className="switch switch-labelled" isSelected={draft.license_required} onChange={set('license_required')}>
        <span className="switch-track" aria-hidden="true" />
        <span>A licence is required to play</span>
      </Switch>
      <TextInput
        label="Content description"
        name="content_description"
        value={draft.content_description}
        onChange={set('content_description')}
        maxLength={rule('content_description').maxLength}
        description="What players should know before buying, such as “Fantasy violence”."
        multiline
      />
      <TextInput
        label="Legal notice"
        name="legal_notice"
        value={draft.legal_notice}
        onChange={set('legal_notice')}
        maxLength={rule('legal_notice').maxLength}
        multiline
      />
      <TextInput
        label="Metadata (JSON object)"
        name="metadata"
        value={draft.metadata}
        onChange={set('metadata')}
        description="Shown on the public store page once the game is published."
        multiline
      />
      {metadata.problem === undefined ? null : (
        <p className="error" role="alert">
          {metadata.problem}
        </p>
      )}
    </FormDialog>
  );
}
