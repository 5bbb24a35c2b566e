import { unwrap } from '@platform-api/sdk';
import { useQuery } from '@tanstack/react-query';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { api } from '../../api/client';
import { ProblemNote } from '../../ui/problem-note';

type RecordType = 'customer' | 'subscription' | 'invoice' | 'payment';

const NAMES: Record<RecordType, string> = {
  customer: 'customer',
  subscription: 'subscription',
  invoice: 'invoice',
  payment: 'payment',
};

/**
 * The record at the payment provider: a link into Stripe's dashboard, or, with the embedded local
 * provider (development and tests), the provider's own record of it, read through the staff API
 * (its page needs the staff member's token, so it cannot open in a tab of its own).
 */
export function ProviderLink({ type, id, label }: { type: RecordType; id: string; label?: string }) {
  return (
    <DialogTrigger>
      <Button className="btn btn-quiet">{label ?? 'At the provider…'}</Button>
      <ModalOverlay className="overlay" isDismissable>
        <Modal className="modal modal-wide">
          <Dialog className="dialog">
            {({ close }) => (
              <>
                <Heading slot="title">The {NAMES[type]} at the payment provider</Heading>
                <ProviderRecord type={type} id={id} />
                <div className="dialog-actions">
                  <Button className="btn" onPress={close}>
                    Close
                  </Button>
                </div>
              </>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function ProviderRecord({ type, id }: { type: RecordType; id: string }) {
  const link = useQuery({
    queryKey: ['billing', 'deep-link', type, id],
    queryFn: () => unwrap(api.GET('/v1/admin/billing/deep-link/{type}/{id}', { params: { path: { type, id } } })),
  });
  const local = useQuery({
    queryKey: ['billing', 'local-record', type, link.data?.provider_id],
    queryFn: () =>
      unwrap(
        api.GET('/v1/admin/billing/local/dashboard/{type}/{id}', {
          params: { path: { type, id: link.data?.provider_id ?? '' } },
        }),
      ),
    enabled: link.data?.provider === 'local',
  });
  if (link.error !== null) return <ProblemNote error={link.error} />;
  if (link.data === undefined) return <p className="loading">Loading…</p>;
  if (link.data.provider === 'stripe') {
    return (
      <p>
        <a href={link.data.url} target="_blank" rel="noopener noreferrer">
          Open {link.data.provider_id} in the Stripe dashboard
        </a>{' '}
        (a new tab).
      </p>
    );
  }
  return (
    <div className="stack-tight">
      <p>
        The local payment provider (development) holds <code>{link.data.provider_id}</code> as:
      </p>
      {local.error !== null ? <ProblemNote error={local.error} /> : null}
      {local.data === undefined ? (
        <p className="loading">Loading…</p>
      ) : (
        <pre className="json billing-record">{JSON.stringify(local.data.object, null, 2)}</pre>
      )}
    </div>
  );
}
