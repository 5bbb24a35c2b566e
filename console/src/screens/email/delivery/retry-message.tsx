import { unwrap } from '@platform-api/sdk';
import { api } from '../../../api/client';
import { Confirm } from '../../../ui/confirm';

/** Sends a failed message again; one interrupted mid-send may reach its recipient twice, and says so. */
export function RetryMessage(props: {
  id: string;
  to: string;
  lastError: string | null;
  canSend: boolean;
  /** A row's quiet button, or the message page's plain one. */
  quiet?: boolean;
}) {
  const interrupted = props.lastError === 'interrupted';
  return (
    <Confirm
      trigger="Retry…"
      triggerClassName={props.quiet === false ? 'btn' : 'btn btn-quiet'}
      isDisabled={!props.canSend}
      disabledReason={props.canSend ? undefined : 'Needs email.send'}
      title={`Send the message to ${props.to} again?`}
      consequence={
        interrupted
          ? 'It was interrupted while being sent, so it may have arrived already: retrying may send a second ' +
            'copy. It goes back in the queue, due now, with its attempts counted afresh.'
          : 'It goes back in the queue, due now, with its attempts counted afresh (up to 5) and its error ' +
            'cleared. A suppressed address still gets no marketing mail.'
      }
      confirmLabel="Send again"
      write={{
        call: () => unwrap(api.POST('/v1/admin/email/outbox/{id}/retry', { params: { path: { id: props.id } } })),
        success: `The message to ${props.to} is queued again`,
        failure: 'Could not retry the message',
        invalidates: [['email', 'outbox']],
      }}
    />
  );
}
