import { useState } from 'react';
import { Button, Switch } from 'react-aria-components';
import { TextInput } from '../../ui/fields';

export type Draft = Record<string, unknown>;

interface DraftFieldsProps {
  draft: Draft;
  onChange: (draft: Draft) => void;
  isReadOnly: boolean;
}

/**
 * A section's own fields, each edited as what it holds: text, a number, a switch, or JSON for
 * lists and objects. Fields can be added and removed; the service keeps the object as given.
 */
export function DraftFields({ draft, onChange, isReadOnly }: DraftFieldsProps) {
  const [newName, setNewName] = useState('');
  const set = (name: string, value: unknown) => onChange({ ...draft, [name]: value });
  const remove = (name: string) => {
    const { [name]: _removed, ...rest } = draft;
    onChange(rest);
  };
  return (
    <div className="stack">
      {Object.entries(draft).map(([name, value]) => (
        <div key={name} className="draft-field">
          <FieldEditor name={name} value={value} onChange={(next) => set(name, next)} isReadOnly={isReadOnly} />
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
            isDisabled={newName.trim() === '' || Object.hasOwn(draft, newName.trim())}
            onPress={() => {
              set(newName.trim(), '');
              setNewName('');
            }}
          >
            Add field
          </Button>
        </div>
      )}
    </div>
  );
}

function FieldEditor({
  name,
  value,
  onChange,
  isReadOnly,
}: {
  name: string;
  value: unknown;
  onChange: (value: unknown) => void;
  isReadOnly: boolean;
}) {
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
        description={isReadOnly ? undefined : 'Text'}
      />
    );
  if (typeof value === 'number')
    return (
      <TextInput
        label={name}
        type="number"
        value={String(value)}
        onChange={(next) => onChange(next === '' ? 0 : Number(next))}
        description="A number"
      />
    );
  return (
    <TextInput
      label={name}
      value={text}
      multiline
      description="JSON (a list or an object)"
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
