import { Fragment, useState, type FormEvent } from 'react';
import { asFailure, type ApiFailure } from '../../api/api-error.js';
import { unwrap, type ApiPaths } from '../../api/client.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { Loading } from '../../components/Loading.js';
import { SelectorInputs } from '../rollouts/SelectorInputs.js';
import { EMPTY_SELECTOR_FIELDS, selectorFromFields, type SelectorFields } from '../rollouts/selector-fields.js';

type Preview = ApiPaths['/v1/plan-preview']['post']['responses'][200]['content']['application/json'];

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
  const [result, setResult] = useState<Preview | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const check = selectorFromFields(fields);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!check.ok) return;
    setBusy(true);
    setFailure(null);
    try {
      setResult(
        await unwrap(
          api.POST('/v1/plan-preview', { body: { profile, revision, selector: check.selector, limit: 200 } }),
        ),
      );
      setOpen(new Set());
    } catch (error) {
      setFailure(asFailure(error));
    } finally {
      setBusy(false);
    }
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
      <form className="wf-form" onSubmit={(e) => void submit(e)} noValidate>
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
          <div className="wf-table-wrap">
            <table className="wf-table" aria-label="Plan preview per router">
              <thead>
                <tr>
                  <th scope="col">Router</th>
                  <th scope="col">Satisfiable</th>
                  <th scope="col">Datapath</th>
                  <th scope="col">Offload</th>
                  <th scope="col">Changes</th>
                </tr>
              </thead>
              <tbody>
                {result.items.map((item) => {
                  const plan = (item.plan ?? {}) as PlanShape;
                  const expanded = open.has(item.routerId);
                  return (
                    <Fragment key={item.routerId}>
                      <tr>
                        <td>
                          <button
                            type="button"
                            className="wf-button wf-button--link"
                            aria-expanded={expanded}
                            aria-controls={`reasons-${item.routerId}`}
                            onClick={() => toggle(item.routerId)}
                          >
                            {expanded ? '▾' : '▸'} {item.name}
                          </button>
                        </td>
                        <td>
                          <span className={`wf-status wf-status--${plan.satisfiable ? 'succeeded' : 'failed'}`}>
                            {plan.satisfiable ? 'yes' : 'refused'}
                          </span>
                        </td>
                        <td>{plan.datapath?.mode ?? '-'}</td>
                        <td>
                          {plan.offload?.mode ?? '-'}
                          {plan.offload && plan.offload.requested !== plan.offload.mode
                            ? ` (asked ${plan.offload.requested})`
                            : ''}
                        </td>
                        <td>{item.changes.length}</td>
                      </tr>
                      {expanded ? (
                        <tr id={`reasons-${item.routerId}`}>
                          <td colSpan={5}>
                            <PlanReasons plan={plan} changes={item.changes.map((c) => c.path)} />
                          </td>
                        </tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
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
