/**
 * The API's named enums as run-time lists, generated from its OpenAPI document by
 * web-admin/scripts/api-enums.ts. Do not edit: run `npm run web:api` after changing a route.
 */
export const API_ENUMS = {
  AlertKind: ["router_offline","drift_detected","apply_failed","rollout_paused","certificate_expiring","audit_chain_broken","dependency_unreachable"],
  AlertSeverity: ["info","warning","critical"],
  AlertStatus: ["firing","acknowledged","silenced","resolved"],
  ApplyResultFilter: ["applied","failed","rolled_back","pending","none"],
  ApplyStatus: ["pending","applied","failed","rolled_back"],
  CapabilityState: ["yes","probed","predicted","no","unknown"],
  CommandKind: ["reprobe","reapply","rollback","detach","check_drift","reboot","diagnostics"],
  CommandState: ["running","completed","cancelled"],
  CommandTargetState: ["queued","sent","succeeded","failed","offline","timed_out","cancelled","refused"],
  ConnectionStatus: ["online","offline","never_seen"],
  DatapathMode: ["tcx","cls_bpf","nftables","iptables","none","unknown"],
  Decommissioned: ["exclude","include","only"],
  DriftState: ["drifted","clean","unreported"],
  FirmwareStep: ["checking","transferring","verifying","testing","flashing"],
  IntentAction: ["create","update","adopt","delete","unchanged","orphan"],
  IntentKind: ["Profile","RolloutPolicy","Assignment","FirmwarePolicy"],
  OffloadMode: ["hardware","software","off","unsupported","unknown"],
  Placement: ["on_router","proxy","unknown"],
  ReachVerdict: ["change","revision","retry","unchanged","refused"],
  RevisionState: ["in_sync","pending"],
  Role: ["read","write","admin"],
  RolloutKind: ["profile","firmware"],
  RolloutState: ["scheduled","running","soaking","awaiting_approval","paused","completed","cancelled"],
  RolloutTargetState: ["queued","sent","applied","failed","rolled_back","skipped","upgraded","unconfirmed"],
  RouterSort: ["created","-created","name","-name","status","-status","soc","-soc","model","-model","release","-release","lastSeen","-lastSeen"],
  Scope: ["read","write","admin","enroll"],
} as const;

/** One value of a named enum: ApiEnum<"ConnectionStatus"> is "online" | "offline" | "never_seen". */
export type ApiEnum<K extends keyof typeof API_ENUMS> = (typeof API_ENUMS)[K][number];
