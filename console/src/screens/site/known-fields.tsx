import { Switch } from 'react-aria-components';
import { TextInput } from '../../ui/fields';
import type { Draft } from './draft-fields';
import type { Section } from './settings-sections';

export type KnownField = Section['known_fields'][number];

/** What each type accepts, checked in the browser before a save (the API stores any value). */
const PATTERNS: Partial<Record<KnownField['type'], { source: string; hint: string }>> = {
  color: { source: '#[0-9a-fA-F]{6}', hint: 'A colour as #rrggbb, like #5b5bd6' },
  locale: { source: '[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*', hint: 'A language tag, like en or pt-BR' },
  url: { source: 'https?://\\S+', hint: 'An address starting with https://' },
};

const TYPE_WORDS: Record<KnownField['type'], string> = {
  text: 'Text',
  long_text: 'Text',
  email: 'An email address',
  url: 'An address (https://…)',
  color: 'A colour (#rrggbb)',
  integer: 'A whole number',
  boolean: 'On or off',
  locale: 'A language tag',
};

/** Whether a stored value has the shape its type edits; one that does not is left to the free-form editor. */
export function fitsType(type: KnownField['type'], value: unknown): boolean {
  if (value === undefined) return true;
  if (type === 'boolean') return typeof value === 'boolean';
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  return typeof value === 'string';
}

/**
 * One field the sites read, edited as its type: an address field for email and URLs, a colour
 * with its swatch and picker, a whole number, a switch. Emptied, it leaves the draft (not set),
 * rather than being stored as an empty string.
 */
export function KnownFieldEditor({
  known,
  draft,
  onChange,
  isReadOnly,
}: {
  known: KnownField;
  draft: Draft;
  onChange: (draft: Draft) => void;
  isReadOnly: boolean;
}) {
  const value = draft[known.name];
  const set = (next: unknown) => {
    const { [known.name]: _old, ...rest } = draft;
    onChange(next === undefined ? rest : { ...rest, [known.name]: next });
  };
  const description = `${known.description} ${TYPE_WORDS[known.type]}; empty: not set.`;
  if (known.type === 'boolean')
    return (
      <div className="stack-tight">
        <Switch
          className="switch switch-labelled"
          isSelected={value === true}
          isReadOnly={isReadOnly}
          onChange={(on) => set(on)}
        >
          <span className="switch-track" aria-hidden="true" />
          <span>{known.name}</span>
        </Switch>
        <span className="hint">{known.description}</span>
      </div>
    );
  const text = value === undefined ? '' : String(value);
  const input = (
    <TextInput
      label={known.name}
      name={known.name}
      value={text}
      description={description}
      type={
        known.type === 'email' ? 'email' : known.type === 'url' ? 'url' : known.type === 'integer' ? 'number' : 'text'
      }
      integer={known.type === 'integer'}
      multiline={known.type === 'long_text'}
      pattern={PATTERNS[known.type]}
      isReadOnly={isReadOnly}
      onChange={(next) => {
        if (next === '') return set(undefined);
        set(known.type === 'integer' ? Number(next) : next);
      }}
    />
  );
  if (known.type !== 'color') return input;
  const valid = /^#[0-9a-fA-F]{6}$/.test(text);
  return (
    <div className="colour-field">
      {input}
      <input
        type="color"
        className="colour-picker"
        aria-label={`Pick ${known.name}`}
        value={valid ? text.toLowerCase() : '#000000'}
        disabled={isReadOnly}
        onChange={(event) => set(event.target.value)}
      />
    </div>
  );
}
