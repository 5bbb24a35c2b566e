import { describeProblem } from '../api/problems';

/** A failed read, in words, where its data would be. */
export function ProblemNote({ error }: { error: unknown }) {
  const problem = describeProblem(error);
  return (
    <p className="error" role="alert">
      {problem.message}
      {problem.requestId === undefined ? null : <span className="muted"> (request {problem.requestId})</span>}
    </p>
  );
}
