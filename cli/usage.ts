/** The CLI's usage text: printed for --help, and after every usage error. */
export const USAGE = `usage: wrtfleet [--url URL] [--token TOKEN] [--json] <command>

  routers ls [--soc SOC] [--status online|offline|never_seen] [--limit N]
  routers show ID
  routers tag ID TAG...
  routers re-enroll ID [--expires-in SECONDS]        admin: a single-use token that lets ID enroll again
  profiles ls
  profiles show NAME [--revision N]
  profiles apply -f FILE.yaml|json [--name NAME]     create or add a revision (no-op if unchanged)
  plan -f DIR [--prune] [-o PLAN.json]               the fleet as code: what applying DIR's YAML would change;
                                                     exit 0 no changes, 2 changes, 1 error
  apply -f DIR [--prune] [--source COMMIT]           apply DIR (all or nothing); rollouts through the named policies
  apply --plan PLAN.json [--source COMMIT]           apply a saved plan; refused if the fleet changed since
  export -o DIR                                      today's profiles, policies and assignments as YAML files
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
  alerts ls [--status active|firing|acknowledged|silenced|resolved|all] [--severity info|warning|critical]
            [--rule NAME] [--router NAME_OR_ID] [--limit N]   newest first; active (unresolved) by default
  alerts ack ID [--note TEXT]                        someone is on it: its group stops announcing it
  alerts silence (--router NAME_OR_ID | --tags TAG... | --rule NAME) --for DURATION --comment TEXT
                                                     hold back notifications; prints the silence's id and end
  alerts silences                                    the silences running or waiting
  alerts unsilence ID                                end a silence now
  alerts rules                                       the alert rules: kind, severity, for, group by, firing
  audit ls [--router ID] [--profile NAME] [--rollout ID] [--actor A] [--from ISO] [--to ISO] [--limit N]
  audit verify
  audit export [-o FILE] [filters as for ls]
  accounts create NAME --role read|write|admin [--password-file F]   password from F, a pipe, or a prompt; never argv
  accounts ls
  accounts role NAME --role read|write|admin
  accounts disable|enable NAME
  accounts reset-password NAME [--password-file F]
  accounts rm NAME
  channels add NAME --webhook URL | --slack URL|- | --email ADDR[,ADDR] --smtp HOST[:PORT] --from ADDR
                [--smtp-user U [--smtp-password-stdin]] [--starttls|--tls|--no-tls]
                [--min-severity info|warning|critical] [--rule NAME]...   a webhook's secret is printed once
  channels ls
  channels test NAME                                 send a test notification now; exit 1 unless delivered
  channels rm NAME
  onboard --host H [--port P] [--user U] (--password-file F | --key-file F) [--fingerprint SHA256:..] [--tags T]... [--placement auto|on_router|proxy] [--install]
  onboard --inventory FILE.csv|yaml [--concurrency N]   many routers; prints a summary

SELECTOR: --all | --ids ID... --soc SOC... --release VER... --tags TAG...   (each flag repeatable)
IMAGE: a firmware image's SHA-256, a unique prefix of it (8 hex characters or more), or its unique file name.
DURATION: a number and a unit, s m h d or w, e.g. 30m, 2h, 1d12h.
--window: the times of day an upgrade may start (UTC unless @TZ, e.g. 02:00-05:00@Europe/Paris).

Spellings of 0.1 still work until 0.3, with a warning: rollout, command, account (now plural),
--id, --openwrt, --tag (now --ids, --release, --tags), rollouts abort (now cancel), re-probe,
re-apply and kebab-case kinds (now reprobe, reapply, check_drift).`;
