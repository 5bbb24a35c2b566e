import type { ReactNode } from 'react';
import {
  FieldError,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Button as SelectButton,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';

interface TextInputProps {
  label: string;
  name?: string;
  value: string;
  onChange: (value: string) => void;
  description?: string;
  /** The service's own verdict on this field (a validation issue), shown beneath it. */
  error?: string;
  type?: 'text' | 'email' | 'password' | 'search' | 'number' | 'url' | 'datetime-local';
  isRequired?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  /** Whole numbers only (the API's `integer`); other numbers take any fraction. */
  integer?: boolean;
  /** The API's regular expression for the value, and what to say when it does not match. */
  pattern?: { source: string; hint: string };
  multiline?: boolean;
  autoFocus?: boolean;
}

/** A labelled text field whose client checks come from the API's published bounds. */
export function TextInput(props: TextInputProps) {
  return (
    <TextField
      className="field"
      name={props.name}
      value={props.value}
      onChange={props.onChange}
      isRequired={props.isRequired}
      minLength={props.minLength}
      maxLength={props.maxLength}
      type={props.multiline ? undefined : (props.type ?? 'text')}
      isInvalid={props.error === undefined ? undefined : true}
      validationBehavior="native"
      validate={
        props.pattern === undefined
          ? undefined
          : (value) =>
              value === '' || new RegExp(`^(?:${props.pattern?.source})$`, 'u').test(value) ? null : props.pattern?.hint
      }
      autoFocus={props.autoFocus}
    >
      <Label>{props.label}</Label>
      {props.multiline ? (
        <TextArea rows={3} />
      ) : (
        <Input
          min={props.minimum}
          max={props.maximum}
          step={props.type === 'number' ? (props.integer ? 1 : 'any') : undefined}
        />
      )}
      {props.description === undefined ? null : <Text slot="description">{props.description}</Text>}
      <FieldError>{props.error}</FieldError>
    </TextField>
  );
}

export interface Choice {
  id: string;
  label: string;
}

interface ChoiceInputProps {
  label: string;
  value: string;
  choices: Choice[];
  onChange: (value: string) => void;
}

/** A labelled select over fixed choices; the empty id means "any". */
export function ChoiceInput({ label, value, choices, onChange }: ChoiceInputProps): ReactNode {
  return (
    <Select className="field" selectedKey={value} onSelectionChange={(key) => onChange(String(key))}>
      <Label>{label}</Label>
      <SelectButton className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </SelectButton>
      <Popover className="popover">
        <ListBox className="listbox" items={choices}>
          {(choice) => (
            <ListBoxItem id={choice.id} className="listbox-item">
              {choice.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
