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
  rollouts create --profile NAME [--revision N] SELECTOR [--canary N] [--batch M] [--max-failure-ratio R]
                  [--soak SECONDS] [--promote auto|manual] [--skip-refused] [--start-at ISO] [--watch]
  rollouts create --firmware IMAGE SELECTOR [--reset-config] [--allow-downgrade] [--window HH:MM-HH:MM[@TZ]]
                  [--step-timeout S] [--confirm-timeout S] [strategy flags, --start-at, --watch as above]
  rollouts ls
  rollouts status ID                                 a firmware rollout: also each router's upgrade step
  rollouts watch ID                                  live progress bar until it ends
  rollouts pause|resume|cancel|promote ID           promote: send the next batch of one awaiting approval
  firmware add FILE [--name FILE_NAME]               upload a sysupgrade image (streamed); prints the routers it fits
  firmware ls [--reset-config] [--allow-downgrade]
  firmware show IMAGE [--keep-config|--reset-config] [--allow-downgrade]   metadata, and why routers do not fit
  firmware rm IMAGE                                  refused while a rollout that has not ended carries it
  commands reprobe|reapply|rollback|check_drift|detach|reboot|diagnostics (--ids ID | SELECTOR)
           [--timeout S] [--deadline S] [--max-in-flight N] [--watch]   exit 3 unless every router succeeded
  commands ls
  commands status|watch|cancel ID
  audit ls [--router ID] [--profile NAME] [--rollout ID] [--actor A] [--from ISO] [--to ISO] [--limit N]
  audit verify
  audit export [-o FILE] [filters as for ls]
  accounts create NAME --role read|write|admin [--password-file F]   password from F, a pipe, or a prompt; never argv
  accounts ls
  accounts role NAME --role read|write|admin
  accounts disable|enable NAME
  accounts reset-password NAME [--password-file F]
  accounts rm NAME
  onboard --host H [--port P] [--user U] (--password-file F | --key-file F) [--fingerprint SHA256:..] [--tags T]... [--placement auto|on_router|proxy] [--install]
  onboard --inventory FILE.csv|yaml [--concurrency N]   many routers; prints a summary

SELECTOR: --all | --ids ID... --soc SOC... --release VER... --tags TAG...   (each flag repeatable)
IMAGE: a firmware image's SHA-256, a unique prefix of it (8 hex characters or more), or its unique file name.
--window: the times of day an upgrade may start (UTC unless @TZ, e.g. 02:00-05:00@Europe/Paris).

Spellings of 0.1 still work until 0.3, with a warning: rollout, command, account (now plural),
--id, --openwrt, --tag (now --ids, --release, --tags), rollouts abort (now cancel), re-probe,
re-apply and kebab-case kinds (now reprobe, reapply, check_drift).`;
