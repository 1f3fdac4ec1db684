SELECT uid, cluster, total_cpu_millis
FROM __intrinsic_android_cpu_per_uid_track
ORDER BY uid, cluster;
