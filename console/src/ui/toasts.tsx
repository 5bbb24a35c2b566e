import {
  Button,
  UNSTABLE_Toast as Toast,
  UNSTABLE_ToastContent as ToastContent,
  UNSTABLE_ToastQueue as ToastQueue,
  UNSTABLE_ToastRegion as ToastRegion,
} from 'react-aria-components';
import { describeProblem } from '../api/problems';

interface ToastBody {
  tone: 'success' | 'failure';
  title: string;
  detail?: string;
}

/**
 * Every write reports here: success for 5 seconds, a failure (with more to read) for 10, either
 * dismissible. A failure kept until dismissed sat over an open dialog's buttons.
 */
const queue = new ToastQueue<ToastBody>({ maxVisibleToasts: 4 });

export const notify = {
  success(title: string): void {
    queue.add({ tone: 'success', title }, { timeout: 5_000 });
  },
  failure(title: string, error: unknown): void {
    const problem = describeProblem(error);
    const detail =
      problem.requestId === undefined ? problem.message : `${problem.message} (request ${problem.requestId})`;
    queue.add({ tone: 'failure', title, detail }, { timeout: 10_000 });
  },
};

export function Toasts() {
  return (
    <ToastRegion queue={queue} className="toasts">
      {({ toast }) => (
        <Toast toast={toast} className={`toast toast-${toast.content.tone}`}>
          <ToastContent>
            <strong>{toast.content.title}</strong>
            {toast.content.detail === undefined ? null : <span>{toast.content.detail}</span>}
          </ToastContent>
          <Button slot="close" aria-label="Dismiss" className="toast-close">
            ×
          </Button>
        </Toast>
      )}
    </ToastRegion>
  );
}
