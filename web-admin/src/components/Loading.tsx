/** A placeholder while data loads; announced politely to screen readers. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="wf-loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}
