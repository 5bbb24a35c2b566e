import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | undefined;
}

/**
 * A screen that throws shows what failed instead of a blank page, and the rest of the console
 * (the header, the other areas) keeps working. The browser tests fail on its console line.
 */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey?: string }, State> {
  override state: State = { error: undefined };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('console screen failed:', error.message, info.componentStack);
  }

  override componentDidUpdate(previous: { resetKey?: string }): void {
    // Moving to another page tries again.
    if (previous.resetKey !== this.props.resetKey && this.state.error !== undefined)
      this.setState({ error: undefined });
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <section className="stack" role="alert">
        <h1>This page failed</h1>
        <p>{this.state.error.message}</p>
        <p className="hint">Reload to try again. If it fails again, tell the team that runs the console.</p>
      </section>
    );
  }
}
