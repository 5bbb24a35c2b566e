import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { notify } from '../ui/toasts';

export interface WriteOptions<Input, Result> {
  /** The call, unwrapped (`unwrap(api.POST(…))`): it throws the service's refusal. */
  call: (input: Input) => Promise<Result>;
  /** The toast after success, in words ("Role support created"); none when left out. */
  success?: string | ((result: Result, input: Input) => string | undefined);
  /** The toast's title after a failure ("Could not create the role"); the refusal is its detail. */
  failure?: string;
  /** Lists and records the write changes: refetched before `onDone` runs. */
  invalidates?: QueryKey[];
  onDone?: (result: Result, input: Input) => void;
}

/**
 * One write of the console: TanStack Query's mutation with the pending state, the toasts and the
 * refetch of what it changed. Every screen writes through this, so a write reports the same way
 * everywhere.
 */
export function useWrite<Input = void, Result = unknown>(options: WriteOptions<Input, Result>) {
  const queryClient = useQueryClient();
  return useMutation<Result, unknown, Input>({
    mutationFn: options.call,
    onSuccess: async (result, input) => {
      const done = typeof options.success === 'function' ? options.success(result, input) : options.success;
      if (done !== undefined) notify.success(done);
      await Promise.all((options.invalidates ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      options.onDone?.(result, input);
    },
    onError: (error) => {
      if (options.failure !== undefined) notify.failure(options.failure, error);
    },
  });
}
