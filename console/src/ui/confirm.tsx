import { type ReactNode, useState } from 'react';
import type { InputRule } from '../api/field-rules';
import type { WriteOptions } from '../api/writes';
import { TextInput } from './fields';
import { FormDialog } from './form-dialog';

interface ConfirmProps<Result> {
  /** The button that opens the dialog. */
  trigger: ReactNode;
  triggerClassName?: string;
  isDisabled?: boolean;
  /** Why it is disabled (a missing permission), shown beside the button. */
  disabledReason?: string;
  title: string;
  /** What will be lost or changed, in words. */
  consequence: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  /** Ask for a reason (the API's audit reason): its rule (api/field-rules.ts). */
  reason?: InputRule;
  /** The person must type this word to confirm (for what cannot be undone). */
  typeToConfirm?: string;
  /** The write it confirms, given the reason typed (trimmed; empty when none): toasts and refetches included. */
  write?: WriteOptions<string, Result>;
  /**
   * @deprecated Use `write`. A call that reports its own outcome and rethrows a failure; the
   * dialog stays open while it runs and closes when it resolves.
   */
  onConfirm?: (reason: string) => Promise<unknown>;
}

/**
 * A confirmation naming what will happen, with an optional reason and typed confirmation: a
 * FormDialog, so its write, pending state and the service's issue about the reason work as in
 * every other form.
 */
export function Confirm<Result = unknown>(props: ConfirmProps<Result>) {
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const typedOk = props.typeToConfirm === undefined || typed === props.typeToConfirm;
  const given = reason.trim();
  const write = props.write;
  const legacy = props.onConfirm;

  return (
    <FormDialog<Result | unknown>
      title={props.title}
      submitLabel={props.confirmLabel}
      destructive={props.destructive}
      alert
      canSubmit={typedOk}
      trigger={{
        label: props.trigger,
        className: props.triggerClassName ?? (props.destructive ? 'btn btn-danger' : 'btn'),
        isDisabled: props.isDisabled,
        disabledReason: props.disabledReason,
      }}
      onOpen={() => {
        setReason('');
        setTyped('');
      }}
      write={
        write === undefined
          ? { call: () => (legacy === undefined ? Promise.resolve(undefined) : legacy(given)) }
          : {
              call: () => write.call(given),
              success:
                typeof write.success === 'function'
                  ? (result) => (write.success as (result: Result, input: string) => string)(result as Result, given)
                  : write.success,
              failure: write.failure,
              invalidates: write.invalidates,
              onDone: (result) => write.onDone?.(result as Result, given),
            }
      }
    >
      <div className="consequence">{props.consequence}</div>
      {props.reason === undefined ? null : (
        <TextInput
          label="Reason"
          name="reason"
          value={reason}
          onChange={setReason}
          isRequired={props.reason.required}
          minLength={props.reason.minLength}
          maxLength={props.reason.maxLength}
          description="Kept in the audit log."
          multiline
          autoFocus
        />
      )}
      {props.typeToConfirm === undefined ? null : (
        <TextInput
          label={`Type ${props.typeToConfirm} to confirm`}
          name="confirmation"
          value={typed}
          onChange={setTyped}
          isRequired
        />
      )}
    </FormDialog>
  );
}
