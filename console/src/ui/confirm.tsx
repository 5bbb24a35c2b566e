import { type ReactNode, useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import type { InputRule } from '../api/field-rules';
import { TextInput } from './fields';

interface ConfirmProps {
  /** The button that opens the dialog. */
  trigger: ReactNode;
  triggerClassName?: string;
  isDisabled?: boolean;
  /** Why it is disabled (a missing permission), shown on the button. */
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
  /** Runs the write; the dialog stays open while it runs and closes when it resolves. */
  onConfirm: (reason: string) => Promise<unknown>;
}

/** A confirmation naming what will happen, with an optional reason and typed confirmation. */
export function Confirm(props: ConfirmProps) {
  const [isOpen, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const typedOk = props.typeToConfirm === undefined || typed === props.typeToConfirm;

  const open = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setReason('');
      setTyped('');
    }
  };

  return (
    <DialogTrigger isOpen={isOpen} onOpenChange={open}>
      <Button
        className={props.triggerClassName ?? (props.destructive ? 'btn btn-danger' : 'btn')}
        isDisabled={props.isDisabled}
        aria-description={props.disabledReason}
      >
        {props.trigger}
      </Button>
      {props.isDisabled && props.disabledReason !== undefined ? (
        <span className="hint">{props.disabledReason}</span>
      ) : null}
      <ModalOverlay className="overlay" isDismissable={!busy}>
        <Modal className="modal">
          <Dialog className="dialog" role="alertdialog">
            {({ close }) => (
              <Form
                onSubmit={async (event) => {
                  event.preventDefault();
                  if (!typedOk) return;
                  setBusy(true);
                  try {
                    await props.onConfirm(reason.trim());
                    close();
                  } catch {
                    // The caller reported the failure; the dialog stays for another try.
                  } finally {
                    setBusy(false);
                  }
                }}
              >
                <Heading slot="title">{props.title}</Heading>
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
                <div className="dialog-actions">
                  <Button className="btn" onPress={close} isDisabled={busy}>
                    Cancel
                  </Button>
                  <Button
                    type="submit"
                    className={props.destructive ? 'btn btn-danger' : 'btn btn-primary'}
                    isDisabled={busy || !typedOk}
                  >
                    {busy ? 'Working…' : props.confirmLabel}
                  </Button>
                </div>
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}
