import { type ReactNode, type RefObject, useContext, useRef, useState } from 'react';
import {
  FieldError,
  FormValidationContext,
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
import { useServiceIssue } from './service-issues';

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
  isReadOnly?: boolean;
}

const NO_SERVER_ERRORS = {};

/**
 * A labelled text field whose client checks come from the API's published bounds.
 *
 * The service's issue for the field (its `error`, or the form's `validationErrors` under its name)
 * is shown until the field is edited: kept as the field's invalid state, it would block the form's
 * native submit. A client message, once shown, follows the value as it is typed.
 */
export function TextInput(props: TextInputProps) {
  const formErrors = useContext(FormValidationContext);
  const fromForm = props.name === undefined ? undefined : formErrors[props.name];
  const issue = useServiceIssue(props.name);
  const given = props.error ?? issue ?? (Array.isArray(fromForm) ? fromForm[0] : fromForm);
  const [serverError, setServerError] = useState(given);
  const [lastGiven, setLastGiven] = useState(given);
  if (given !== lastGiven) {
    setLastGiven(given);
    setServerError(given);
  }
  const inputRef = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const onChange = (value: string) => {
    setServerError(undefined);
    props.onChange(value);
    // Native validation shows its message only on blur or submit; while one is shown, re-check
    // on each edit so a fixed value clears it (else the first click only clears the message).
    const input = inputRef.current;
    if (input?.getAttribute('aria-invalid') === 'true') input.dispatchEvent(new Event('change', { bubbles: true }));
  };
  return (
    // React Aria would keep the form's server error as the field's invalid state until blur.
    <FormValidationContext.Provider value={NO_SERVER_ERRORS}>
      <TextInputField {...props} serverError={serverError} onChange={onChange} inputRef={inputRef} />
    </FormValidationContext.Provider>
  );
}

function TextInputField(
  props: TextInputProps & {
    serverError: string | undefined;
    inputRef: RefObject<(HTMLInputElement & HTMLTextAreaElement) | null>;
  },
) {
  return (
    <TextField
      className="field"
      name={props.name}
      value={props.value}
      onChange={props.onChange}
      isRequired={props.isRequired}
      isReadOnly={props.isReadOnly}
      minLength={props.minLength}
      maxLength={props.maxLength}
      type={props.multiline ? undefined : (props.type ?? 'text')}
      isInvalid={props.serverError === undefined ? undefined : true}
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
        <TextArea ref={props.inputRef} rows={3} />
      ) : (
        <Input
          ref={props.inputRef}
          min={props.minimum}
          max={props.maximum}
          step={props.type === 'number' ? (props.integer ? 1 : 'any') : undefined}
        />
      )}
      {props.description === undefined ? null : <Text slot="description">{props.description}</Text>}
      <FieldError>{props.serverError}</FieldError>
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
