import { useState, type FormEvent } from 'react';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useApiMutation } from '../../api/queries.js';
import { useSignedIn } from '../../app/session.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { Loading } from '../../components/Loading.js';
import { SelectorInputs } from '../rollouts/SelectorInputs.js';
import { EMPTY_SELECTOR_FIELDS, selectorFromFields, type SelectorFields } from '../rollouts/selector-fields.js';

type Preview = ApiPaths['/v1/plan-preview']['post']['responses'][200]['content']['application/json'];
type PreviewItem = Preview['items'][number];

interface PlanShape {
  satisfiable?: boolean;
  datapath?: { mode?: string; attach?: string | null };
  offload?: { mode?: string; requested?: string };
  refusals?: { topic: string; reason: string }[];
  decisions?: { topic: string; choice: string; reason: string }[];
  warnings?: string[];
}

/**
 * `wrtfleet plan preview` over a selector: the CLI's table (router, satisfiable, datapath,
 * offload, changes), each router expandable to every decision of its plan with its reason.
 */
export function PlanPreview({ profile, revisions }: { profile: string; revisions: readonly number[] }) {
  const { api } = useSignedIn();
  const [revision, setRevision] = useState(revisions[0] ?? 1);
  const [fields, setFields] = useState<SelectorFields>(EMPTY_SELECTOR_FIELDS);
  const [touched, setTouched] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const check = selectorFromFields(fields);
  // A preview changes nothing: a POST for its body, so a mutation that invalidates nothing.
  const preview = useApiMutation(
    (selector: Extract<typeof check, { ok: true }>['selector']) =>
      unwrap(api.POST('/v1/plan-preview', { body: { profile, revision, selector, limit: 200 } })),
    { onSuccess: () => setOpen(new Set()) },
  );
  const result: Preview | undefined = preview.data;
  const busy = preview.pending;
  const failure = preview.failure;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (check.ok) preview.run(check.selector);
  };
  const toggle = (id: string) =>
    setOpen((now) => {
      const next = new Set(now);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <section className="wf-panel" aria-labelledby="plan-preview-title">
      <h2 id="plan-preview-title">Plan preview</h2>
      <form className="wf-form" onSubmit={submit} noValidate>
        <Field label="Revision to preview">
          <select value={revision} onChange={(e) => setRevision(Number(e.target.value))}>
            {revisions.map((r) => (
              <option key={r} value={r}>
                revision {r}
              </option>
            ))}
          </select>
        </Field>
        <SelectorInputs fields={fields} onChange={setFields} check={touched ? check : { ok: true, selector: {} }} />
        <div className="wf-form__actions">
          <button type="submit" className="wf-button wf-button--primary" disabled={busy}>
            Preview plan
          </button>
        </div>
      </form>
      {busy ? <Loading what="Resolving plans" /> : null}
      {failure ? <ErrorNotice failure={failure} /> : null}
      {result ? (
        <>
          <p role="status">
            {result.matched} routers matched
            {result.items.length < result.matched ? ` (the first ${result.items.length} shown)` : ''};{' '}
            {Object.entries(result.summary)
              .map(([k, v]) => `${v} ${k}`)
              .join(', ')}
            .
          </p>
          <DataTable
            rows={result.items}
            columns={previewColumns(open, toggle)}
            rowKey={(item) => item.routerId}
            caption="Plan preview per router"
            empty={<p className="wf-muted">No router matches the selector.</p>}
            detail={(item) =>
              open.has(item.routerId)
                ? {
                    id: `reasons-${item.routerId}`,
                    content: <PlanReasons plan={planOf(item)} changes={item.changes.map((c) => c.path)} />,
                  }
                : null
            }
          />
        </>
      ) : null}
    </section>
  );
}

const planOf = (item: PreviewItem) => (item.plan ?? {}) as PlanShape;

/** The CLI's columns; the router's name opens its decisions. */
function previewColumns(open: ReadonlySet<string>, toggle: (id: string) => void): Column<PreviewItem>[] {
  return [
    {
      id: 'router',
      header: 'Router',
      sortValue: (item) => item.name,
      cell: (item) => (
        <button
          type="button"
          className="wf-button wf-button--link"
          aria-expanded={open.has(item.routerId)}
          aria-controls={`reasons-${item.routerId}`}
          onClick={() => toggle(item.routerId)}
        >
          {open.has(item.routerId) ? '▾' : '▸'} {item.name}
        </button>
      ),
    },
    {
      id: 'satisfiable',
      header: 'Satisfiable',
      sortValue: (item) => (planOf(item).satisfiable ? 'yes' : 'refused'),
      cell: (item) => (
        <span className={`wf-status wf-status--${planOf(item).satisfiable ? 'succeeded' : 'failed'}`}>
          {planOf(item).satisfiable ? 'yes' : 'refused'}
        </span>
      ),
    },
    { id: 'datapath', header: 'Datapath', cell: (item) => planOf(item).datapath?.mode ?? '-' },
    {
      id: 'offload',
      header: 'Offload',
      cell: (item) => {
        const offload = planOf(item).offload;
        return `${offload?.mode ?? '-'}${offload && offload.requested !== offload.mode ? ` (asked ${offload.requested})` : ''}`;
      },
    },
    { id: 'changes', header: 'Changes', sortValue: (item) => item.changes.length, cell: (item) => item.changes.length },
  ];
}

function PlanReasons({ plan, changes }: { plan: PlanShape; changes: string[] }) {
  return (
    <div className="wf-reasons">
      {plan.refusals?.length ? (
        <ul className="wf-reasons__refusals">
          {plan.refusals.map((r, i) => (
            <li key={i}>
              <strong>refused</strong> {r.topic}: {r.reason}
            </li>
          ))}
        </ul>
      ) : null}
      <ul className="wf-reasons__decisions">
        {(plan.decisions ?? []).map((d, i) => (
          <li key={i}>
            <code>{d.topic}</code>: <strong>{d.choice}</strong> ({d.reason})
          </li>
        ))}
      </ul>
      {plan.warnings?.length ? (
        <ul className="wf-reasons__warnings">
          {plan.warnings.map((w, i) => (
            <li key={i}>warning: {w}</li>
          ))}
        </ul>
      ) : null}
      <p>changes: {changes.length ? changes.join(', ') : 'none'}</p>
    </div>
  );
}
