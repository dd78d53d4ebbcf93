/** The CLI's usage text: printed for --help, and after every usage error. */
export const USAGE = `usage: wrtfleet [--url URL] [--token TOKEN] [--json] <command>

  routers ls [--soc SOC] [--status online|offline|never_seen] [--limit N]
  routers show ID
  routers tag ID TAG...
  routers re-enroll ID [--expires-in SECONDS]        admin: a single-use token that lets ID enroll again
  profiles ls
  profiles show NAME [--revision N]
  profiles apply -f FILE.yaml|json [--name NAME]     create or add a revision (no-op if unchanged)
  plan preview --router ID [--profile NAME [--revision N]]
  plan preview --profile NAME [--revision N] SELECTOR
  rollout create --profile NAME [--revision N] SELECTOR [--canary N] [--batch M] [--max-failure-ratio R]
                 [--soak SECONDS] [--promote auto|manual] [--skip-refused] [--start-at ISO] [--watch]
  rollout ls
  rollout status ID
  rollout watch ID                                  live progress bar until it ends
  rollout pause|resume|abort|promote ID             promote: send the next batch of one awaiting approval
  command re-probe|re-apply|rollback|check-drift|detach|reboot|diagnostics (--id ID | SELECTOR)
          [--timeout S] [--deadline S] [--max-in-flight N] [--watch]   exit 3 unless every router succeeded
  command ls
  command status|watch|cancel ID
  audit ls [--router ID] [--profile NAME] [--rollout ID] [--actor A] [--from ISO] [--to ISO] [--limit N]
  audit verify
  audit export [-o FILE] [filters as for ls]
  account create NAME --role read|write|admin [--password-file F]   password from F, a pipe, or a prompt; never argv
  account ls
  account role NAME --role read|write|admin
  account disable|enable NAME
  account reset-password NAME [--password-file F]
  account rm NAME
  onboard --host H [--port P] [--user U] (--password-file F | --key-file F) [--fingerprint SHA256:..] [--tag T]... [--placement auto|on_router|proxy] [--install]
  onboard --inventory FILE.csv|yaml [--concurrency N]   many routers; prints a summary

SELECTOR: --all | --id ID... --soc SOC... --openwrt VER... --tag TAG...`;
