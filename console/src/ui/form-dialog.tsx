import { type ReactNode, useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { describeProblem } from '../api/problems';
import { useWrite, type WriteOptions } from '../api/writes';
import { ServiceIssues } from './service-issues';

export interface DialogTriggerButton {
  label: ReactNode;
  className?: string;
  isDisabled?: boolean;
  /** Why it is disabled (a missing permission), shown beside the button. */
  disabledReason?: string;
}

interface FormDialogProps<Result> {
  title: string;
  /** The submit button's words ("Create role"). */
  submitLabel: string;
  /** With a trigger the dialog opens from its button; without one it is open while rendered. */
  trigger?: DialogTriggerButton;
  /** Called when the dialog closes (cancel, Escape, or after success). */
  onClose?: () => void;
  /** Called each time the trigger opens it: the place to reset the fields. */
  onOpen?: () => void;
  wide?: boolean;
  destructive?: boolean;
  /** An alert dialog (a confirmation): what it asks must be read before going on. Destructive ones always are. */
  alert?: boolean;
  /** False keeps the submit button disabled (a missing permission, a confirmation not typed). */
  canSubmit?: boolean;
  /**
   * The service's issues by field name, from its refusal; by default the issue paths as they are
   * (`ends_at`). A form for one item of a list the API takes whole maps `rules.2.threshold` here.
   */
  issuesOf?: (error: unknown) => Record<string, string>;
  /** The write the form makes: its call, toasts and what it refetches. */
  write: WriteOptions<void, Result>;
  children: ReactNode;
}

/**
 * A dialog holding one form that makes one write: the pending state, the service's field issues
 * beneath their fields, the toasts, and the refetch of what changed. Any edit clears the issues
 * (one naming two fields, such as "ends_at must be after starts_at", is fixed by editing either).
 */
export function FormDialog<Result>(props: FormDialogProps<Result>) {
  const [isOpen, setOpen] = useState(props.trigger === undefined);
  const [issues, setIssues] = useState<Record<string, string>>({});
  const close = () => {
    setOpen(false);
    setIssues({});
    props.onClose?.();
  };
  const write = useWrite<void, Result>({
    ...props.write,
    onDone: (result, input) => {
      close();
      props.write.onDone?.(result, input);
    },
  });
  const busy = write.isPending;
  const clearIssues = () => setIssues((shown) => (Object.keys(shown).length === 0 ? shown : {}));
  const openChanged = (open: boolean) => {
    if (open) {
      setIssues({});
      write.reset();
      props.onOpen?.();
      setOpen(true);
    } else if (!busy) close();
  };

  const overlay = (
    <ModalOverlay className="overlay" isOpen={isOpen} onOpenChange={openChanged} isDismissable={!busy}>
      <Modal className={props.wide ? 'modal modal-wide' : 'modal'}>
        <Dialog className="dialog" role={props.destructive || props.alert ? 'alertdialog' : 'dialog'}>
          <Form
            onSubmit={(event) => {
              event.preventDefault();
              // One write per submit: a second submit while the first runs (Enter held, a double click) does nothing.
              if (busy) return;
              setIssues({});
              write.mutate(undefined, {
                onError: (error) => setIssues(props.issuesOf?.(error) ?? describeProblem(error).fields),
              });
            }}
          >
            <Heading slot="title">{props.title}</Heading>
            {/* Input events of any field bubble here: an edit anywhere clears the service's issues. */}
            <div className="dialog-fields" onInput={clearIssues}>
              <ServiceIssues.Provider value={issues}>{props.children}</ServiceIssues.Provider>
            </div>
            {issues[''] === undefined ? null : (
              <p className="error" role="alert">
                {issues['']}
              </p>
            )}
            <div className="dialog-actions">
              <Button className="btn" onPress={() => openChanged(false)} isDisabled={busy}>
                Cancel
              </Button>
              <Button
                type="submit"
                className={props.destructive ? 'btn btn-danger' : 'btn btn-primary'}
                isDisabled={busy || props.canSubmit === false}
              >
                {busy ? 'Working…' : props.submitLabel}
              </Button>
            </div>
          </Form>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );

  if (props.trigger === undefined) return overlay;
  const trigger = props.trigger;
  return (
    <DialogTrigger isOpen={isOpen} onOpenChange={openChanged}>
      <Button
        className={trigger.className ?? 'btn'}
        isDisabled={trigger.isDisabled}
        aria-description={trigger.isDisabled ? trigger.disabledReason : undefined}
      >
        {trigger.label}
      </Button>
      {trigger.isDisabled && trigger.disabledReason !== undefined ? (
        <span className="hint">{trigger.disabledReason}</span>
      ) : null}
      {overlay}
    </DialogTrigger>
  );
}
