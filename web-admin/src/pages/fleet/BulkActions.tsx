import { useState } from 'react';
import { unwrap } from '../../api/client.js';
import { useApiMutation, useApiQuery } from '../../api/queries.js';
import { queryKeys } from '../../api/query-keys.js';
import { useSignedIn } from '../../app/session.js';
import { ErrorNotice } from '../../components/ErrorNotice.js';
import { Field } from '../../components/Field.js';
import { ActionDialog } from './ActionDialog.js';
import { apiFilter } from './fleet-query.js';
import { bulkTarget, selectedCount, type Selection } from './fleet-selection.js';
import type { Command, CommandKind } from './fleet-types.js';

type Action = 'tag' | 'untag' | 'assign' | 'rollout' | 'command';

const COMMANDS: { kind: CommandKind; label: string; admin?: boolean }[] = [
  { kind: 'check_drift', label: 'Check drift' },
  { kind: 'reprobe', label: 'Re-probe' },
  { kind: 'reapply', label: 'Re-apply' },
  { kind: 'rollback', label: 'Roll back' },
  { kind: 'diagnostics', label: 'Diagnostics' },
  { kind: 'detach', label: 'Detach', admin: true },
  { kind: 'reboot', label: 'Reboot', admin: true },
];

interface BulkActionsProps {
  selection: Selection;
  onDone(message: string): void;
  onCommand(job: Command): void;
}

/** The selection's ids for a selector (commands, rollouts): "all that match" is resolved on the server. */
async function selectorIds(api: ReturnType<typeof useSignedIn>['api'], selection: Selection): Promise<string[]> {
  if (selection.kind === 'ids') return [...selection.ids];
  const { ids, total } = await unwrap(api.GET('/v1/routers/ids', { params: { query: apiFilter(selection.filter) } }));
  if (total > ids.length) throw new Error(`${total} routers match; narrow the filter to at most ${ids.length}`);
  return ids;
}

/** The actions on a selection; rendered only for an operator with the write scope. */
export function BulkActions({ selection, onDone, onCommand }: BulkActionsProps) {
  const { api, can } = useSignedIn();
  const [open, setOpen] = useState<Action | null>(null);
  const [tags, setTags] = useState('');
  const [profile, setProfile] = useState('');
  const [kind, setKind] = useState<CommandKind>('check_drift');
  const [canary, setCanary] = useState('1');
  const [batch, setBatch] = useState('50');
  const profiles = useApiQuery(
    [...queryKeys.profiles, 'list'],
    () => unwrap(api.GET('/v1/profiles', { params: { query: { limit: 500 } } })),
    { enabled: open === 'assign' || open === 'rollout' },
  );
  const count = selectedCount(selection);
  const routers = `${count} router${count === 1 ? '' : 's'}`;

  const tagList = tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

  // Whatever the action, the routers' lists and counts read again; a rollout or a command also
  // shows in its own history.
  const act = useApiMutation(
    async (action: Action) => {
      if (action === 'tag' || action === 'untag') {
        const result = await unwrap(
          api.POST('/v1/routers/bulk', { body: { action, tags: tagList, ...bulkTarget(selection) } }),
        );
        onDone(`${action === 'tag' ? 'Tagged' : 'Untagged'} ${result.changed} of ${result.matched} routers`);
      } else if (action === 'assign') {
        const result = await unwrap(
          api.POST('/v1/routers/bulk', { body: { action: 'assign', profile, ...bulkTarget(selection) } }),
        );
        onDone(`Assigned ${profile} to ${result.changed} of ${result.matched} routers`);
      } else if (action === 'rollout') {
        const ids = await selectorIds(api, selection);
        const rollout = await unwrap(
          api.POST('/v1/rollouts', {
            body: { profile, selector: { ids }, strategy: { canary: Number(canary), batchSize: Number(batch) } },
          }),
        );
        onDone(`Rollout ${rollout.id} of ${profile} started on ${ids.length} routers`);
      } else {
        const ids = await selectorIds(api, selection);
        onCommand(await unwrap(api.POST('/v1/commands', { body: { kind, selector: { ids } } })));
      }
    },
    { invalidates: [queryKeys.routers, queryKeys.rollouts, queryKeys.commands] },
  );
  const submit = () => {
    if (open) act.run(open, { onSuccess: () => setOpen(null) });
  };
  const busy = act.pending;
  const failure = act.failure;

  const profileNames = profiles.data?.items.map((p) => p.name) ?? [];
  const close = () => {
    setOpen(null);
    act.reset();
  };
  return (
    <div className="wf-fleet-actions" role="toolbar" aria-label="Actions on the selection">
      <button type="button" className="wf-button wf-button--small" onClick={() => setOpen('tag')}>
        Tag…
      </button>
      <button type="button" className="wf-button wf-button--small" onClick={() => setOpen('untag')}>
        Untag…
      </button>
      <button type="button" className="wf-button wf-button--small" onClick={() => setOpen('assign')}>
        Assign profile…
      </button>
      <button type="button" className="wf-button wf-button--small" onClick={() => setOpen('rollout')}>
        Start rollout…
      </button>
      <button
        type="button"
        className="wf-button wf-button--small wf-button--primary"
        onClick={() => setOpen('command')}
      >
        Run command…
      </button>
      {open === 'tag' || open === 'untag' ? (
        <ActionDialog
          title={open === 'tag' ? `Tag ${routers}` : `Untag ${routers}`}
          confirm={open === 'tag' ? 'Add tags' : 'Remove tags'}
          busy={busy || tagList.length === 0}
          onConfirm={submit}
          onClose={close}
        >
          <Field label="Tags" hint="Comma-separated, e.g. site:ams,group:canary">
            <input value={tags} onChange={(e) => setTags(e.target.value)} autoFocus />
          </Field>
          {failure ? <ErrorNotice failure={failure} /> : null}
        </ActionDialog>
      ) : null}
      {open === 'assign' || open === 'rollout' ? (
        <ActionDialog
          title={open === 'assign' ? `Assign a profile to ${routers}` : `Start a rollout on ${routers}`}
          confirm={open === 'assign' ? 'Assign' : 'Start rollout'}
          busy={busy || !profile}
          onConfirm={submit}
          onClose={close}
        >
          <Field
            label="Profile"
            hint={open === 'assign' ? 'Its newest revision, without per-router overrides' : 'Its newest revision'}
          >
            <select value={profile} onChange={(e) => setProfile(e.target.value)}>
              <option value="">Choose…</option>
              {profileNames.map((p) => (
                <option key={p}>{p}</option>
              ))}
            </select>
          </Field>
          {open === 'rollout' ? (
            <>
              <Field label="Canary size">
                <input type="number" min={0} value={canary} onChange={(e) => setCanary(e.target.value)} />
              </Field>
              <Field label="Batch size">
                <input type="number" min={1} value={batch} onChange={(e) => setBatch(e.target.value)} />
              </Field>
            </>
          ) : null}
          {profiles.failure ? <ErrorNotice failure={profiles.failure} /> : null}
          {failure ? <ErrorNotice failure={failure} /> : null}
        </ActionDialog>
      ) : null}
      {open === 'command' ? (
        <ActionDialog
          title={`Run a command on ${routers}`}
          confirm="Run"
          busy={busy}
          onConfirm={submit}
          onClose={close}
        >
          <Field label="Command">
            <select value={kind} onChange={(e) => setKind(e.target.value as CommandKind)}>
              {COMMANDS.filter((c) => !c.admin || can('admin')).map((c) => (
                <option key={c.kind} value={c.kind}>
                  {c.label}
                </option>
              ))}
            </select>
          </Field>
          {failure ? <ErrorNotice failure={failure} /> : null}
        </ActionDialog>
      ) : null}
    </div>
  );
}
