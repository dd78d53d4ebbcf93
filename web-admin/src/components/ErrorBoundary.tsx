import { Component, type ErrorInfo, type ReactNode } from 'react';
import { asFailure } from '../api/api-error.js';
import { ErrorNotice } from './ErrorNotice.js';

interface Props {
  children: ReactNode;
  /** Changing it clears a caught error (the route, so navigating away recovers). */
  resetKey?: string;
}

/** A render error anywhere below shows its message (and a way out), never a blank page. */
export class ErrorBoundary extends Component<Props, { error: unknown; key: string | undefined }> {
  override state = { error: null as unknown, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: { error: unknown; key: string | undefined }) {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('console page failed', error, info.componentStack);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="wf-page">
        <h1>Something went wrong on this page</h1>
        <ErrorNotice failure={asFailure(this.state.error)} />
        <p>
          <button type="button" className="wf-button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </p>
      </div>
    );
  }
}
