import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { TextInput } from '../../ui/fields';
import { fitsType, type KnownField, KnownFieldEditor } from './known-fields';

export type Draft = Record<string, unknown>;

interface DraftFieldsProps {
  draft: Draft;
  /** The fields the sites read, edited as their types; the rest stay free-form. */
  known: KnownField[];
  onChange: (draft: Draft) => void;
  isReadOnly: boolean;
}

/**
 * A section's draft: the fields the sites read, each edited as its type, then any other field as
 * what it holds (text, a number, a switch, or JSON for lists and objects). Other fields can be added
 * and removed; the service keeps the object as given. A known field holding a value of another
 * type is shown among the others, so nothing stored is hidden or rewritten.
 */
export function DraftFields({ draft, known, onChange, isReadOnly }: DraftFieldsProps) {
  const [newName, setNewName] = useState('');
  const set = (name: string, value: unknown) => onChange({ ...draft, [name]: value });
  const remove = (name: string) => {
    const { [name]: _removed, ...rest } = draft;
    onChange(rest);
  };
  const typed = known.filter((field) => fitsType(field.type, draft[field.name]));
  const typedNames = new Set(typed.map((field) => field.name));
  const others = Object.entries(draft).filter(([name]) => !typedNames.has(name));
  return (
    <div className="stack">
      {typed.length === 0 ? null : (
        <fieldset className="stack draft-group">
          <legend>Fields the sites read</legend>
          {typed.map((field) => (
            <div key={field.name} className="draft-field">
              <KnownFieldEditor known={field} draft={draft} onChange={onChange} isReadOnly={isReadOnly} />
            </div>
          ))}
        </fieldset>
      )}
      <fieldset className="stack draft-group">
        <legend>{typed.length === 0 ? 'Fields' : 'Other fields'}</legend>
        {others.length === 0 ? <p className="hint">None.</p> : null}
        {others.map(([name, value]) => (
          <div key={name} className="draft-field">
            <FieldEditor
              name={name}
              value={value}
              expected={known.find((field) => field.name === name)?.type}
              onChange={(next) => set(name, next)}
              isReadOnly={isReadOnly}
            />
            <Button
              className="btn btn-quiet"
              isDisabled={isReadOnly}
              onPress={() => remove(name)}
              aria-label={`Remove ${name}`}
            >
              Remove
            </Button>
          </div>
        ))}
        {isReadOnly ? null : (
          <div className="inline-form">
            <TextInput label="New field name" value={newName} onChange={setNewName} maxLength={100} />
            <Button
              className="btn"
              isDisabled={
                newName.trim() === '' || Object.hasOwn(draft, newName.trim()) || typedNames.has(newName.trim())
              }
              onPress={() => {
                set(newName.trim(), '');
                setNewName('');
              }}
            >
              Add field
            </Button>
          </div>
        )}
      </fieldset>
    </div>
  );
}

function FieldEditor({
  name,
  value,
  expected,
  onChange,
  isReadOnly,
}: {
  name: string;
  value: unknown;
  /** A known field's type, when the value stored is not of it. */
  expected?: KnownField['type'];
  onChange: (value: unknown) => void;
  isReadOnly: boolean;
}) {
  const mismatch =
    expected === undefined ? undefined : `The sites read this as ${expected.replace('_', ' ')}; it holds`;
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [invalid, setInvalid] = useState<string | undefined>();
  if (typeof value === 'boolean')
    return (
      <Switch className="switch switch-labelled" isSelected={value} isReadOnly={isReadOnly} onChange={onChange}>
        <span className="switch-track" aria-hidden="true" />
        <span>{name}</span>
      </Switch>
    );
  if (typeof value === 'string' || value === null)
    return (
      <TextInput
        label={name}
        value={value ?? ''}
        onChange={onChange}
        multiline={(value ?? '').length > 80}
        isReadOnly={isReadOnly}
        description={mismatch === undefined ? (isReadOnly ? undefined : 'Text') : `${mismatch} text.`}
      />
    );
  if (typeof value === 'number')
    return (
      <TextInput
        label={name}
        type="number"
        value={String(value)}
        isReadOnly={isReadOnly}
        onChange={(next) => onChange(next === '' ? 0 : Number(next))}
        description={mismatch === undefined ? 'A number' : `${mismatch} a number.`}
      />
    );
  return (
    <TextInput
      label={name}
      value={text}
      multiline
      isReadOnly={isReadOnly}
      description={mismatch === undefined ? 'JSON (a list or an object)' : `${mismatch} JSON (a list or an object).`}
      error={invalid}
      onChange={(next) => {
        setText(next);
        try {
          onChange(JSON.parse(next));
          setInvalid(undefined);
        } catch {
          setInvalid('Not valid JSON yet');
        }
      }}
    />
  );
}
