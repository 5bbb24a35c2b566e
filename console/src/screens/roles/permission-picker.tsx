import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Checkbox } from 'react-aria-components';
import { api } from '../../api/client';

interface PermissionPickerProps {
  value: string[];
  onChange: (keys: string[]) => void;
  /** Whether the signed-in staff member holds a key: the service refuses to grant any other. */
  holds: (key: string) => boolean;
  isReadOnly?: boolean;
}

const EVERYTHING = '*';
const wildcardOf = (resource: string) => `${resource}.*`;

/**
 * Every grantable permission, grouped by resource, with `*` and `<resource>.*`: a wildcard ticks
 * (and locks) what it includes. A key the staff member does not hold is disabled and says so.
 */
export function PermissionPicker({ value, onChange, holds, isReadOnly }: PermissionPickerProps) {
  const catalog = useQuery({
    queryKey: ['roles', 'permission-catalog'],
    queryFn: () => unwrap(api.GET('/v1/admin/permissions')),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const chosen = new Set(value);
  const set = (key: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(key);
    else next.delete(key);
    onChange([...next].sort());
  };
  if (catalog.data === undefined) return <p className="loading">Loading the permissions…</p>;
  const resources = new Map<string, typeof catalog.data.data>();
  for (const permission of catalog.data.data)
    resources.set(permission.resource, [...(resources.get(permission.resource) ?? []), permission]);
  const everything = chosen.has(EVERYTHING);
  // A wildcard is the staff member's to grant when they hold every key it stands for.
  const held = (key: string) =>
    key === EVERYTHING
      ? catalog.data.data.every((permission) => holds(permission.key))
      : key.endsWith('.*')
        ? (resources.get(key.slice(0, -2)) ?? []).every((permission) => holds(permission.key))
        : holds(key);
  const cannot = (key: string) => (held(key) ? undefined : `You do not hold ${key}`);

  return (
    <div className="picker">
      <PickerBox
        label="Everything (*)"
        description="Every permission, present and future."
        isSelected={everything}
        isDisabled={isReadOnly || cannot(EVERYTHING) !== undefined}
        disabledReason={cannot(EVERYTHING)}
        onChange={(on) => set(EVERYTHING, on)}
      />
      {[...resources].map(([resource, permissions]) => {
        const wildcard = wildcardOf(resource);
        const all = everything || chosen.has(wildcard);
        return (
          <fieldset key={resource} className="picker-group">
            <legend>{resource}</legend>
            <PickerBox
              label={`All of ${resource} (${wildcard})`}
              isSelected={all}
              isDisabled={isReadOnly || everything || cannot(wildcard) !== undefined}
              disabledReason={everything ? 'Included by *' : cannot(wildcard)}
              onChange={(on) => set(wildcard, on)}
            />
            {permissions.map((permission) => (
              <PickerBox
                key={permission.key}
                label={permission.key}
                description={permission.description}
                isSelected={all || chosen.has(permission.key)}
                isDisabled={isReadOnly || all || cannot(permission.key) !== undefined}
                disabledReason={all ? `Included by ${everything ? '*' : wildcard}` : cannot(permission.key)}
                onChange={(on) => set(permission.key, on)}
              />
            ))}
          </fieldset>
        );
      })}
    </div>
  );
}

interface PickerBoxProps {
  label: string;
  description?: string;
  isSelected: boolean;
  isDisabled?: boolean;
  disabledReason?: string;
  onChange: (on: boolean) => void;
}

function PickerBox({ label, description, isSelected, isDisabled, disabledReason, onChange }: PickerBoxProps) {
  return (
    <Checkbox className="checkbox picker-box" isSelected={isSelected} isDisabled={isDisabled} onChange={onChange}>
      <span className="checkbox-box" aria-hidden="true" />
      <span className="picker-label">
        <span>{label}</span>
        {description === undefined ? null : <span className="hint">{description}</span>}
        {isDisabled && disabledReason !== undefined ? <span className="hint">{disabledReason}</span> : null}
      </span>
    </Checkbox>
  );
}
