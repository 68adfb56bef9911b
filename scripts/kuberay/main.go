// The entry point scripts/kuberay-binary.sh builds the KubeRay operator with
// (github.com/ray-project/kuberay/ray-operator, pinned there): the module's own RayCluster,
// RayService and RayJob reconcilers, unchanged, set up as its main.go sets them up (same flags,
// same configuration file, same manager and cache options), with one difference: the RayJob
// reconciler is given standInDashboard (standin_dashboard.go) as its ClientProvider instead of
// the configuration's HTTP client of the Ray dashboard. KWOK's pods run no Ray, so no dashboard
// answers at a RayJob's head service; the stand-in reports the Ray job a RayJob's submitter Job
// submitted, as that Job reports it (docs/ray.md). The RayService reconciler keeps the real
// client: Berth queues no RayService.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	routev1 "github.com/openshift/api/route/v1"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	k8szap "sigs.k8s.io/controller-runtime/pkg/log/zap"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	configapi "github.com/ray-project/kuberay/ray-operator/apis/config/v1alpha1"
	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/batchscheduler"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/metrics"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/pkg/features"
	webhooks "github.com/ray-project/kuberay/ray-operator/pkg/webhooks/v1"
)

var setupLog = ctrl.Log.WithName("setup")

func main() {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(rayv1.AddToScheme(scheme))
	utilruntime.Must(routev1.Install(scheme))
	utilruntime.Must(batchv1.AddToScheme(scheme))
	utilruntime.Must(configapi.AddToScheme(scheme))

	// Upstream's flags and defaults but for --log-file-path (logs go to stdout, which the harness
	// keeps) and the deprecated --forced-cluster-upgrade and --enable-batch-scheduler.
	var config configapi.Configuration
	var enableLeaderElection bool
	var qps float64
	var burst int
	var configFile, featureGates, logStdoutEncoder string
	flag.StringVar(&config.MetricsAddr, "metrics-addr", configapi.DefaultMetricsAddr, "The address the metric endpoint binds to.")
	flag.StringVar(&config.ProbeAddr, "health-probe-bind-address", configapi.DefaultProbeAddr, "The address the probe endpoint binds to.")
	flag.BoolVar(&enableLeaderElection, "enable-leader-election", configapi.DefaultEnableLeaderElection, "Enable leader election for controller manager.")
	flag.StringVar(&config.LeaderElectionNamespace, "leader-election-namespace", "", "Namespace where the leader election resource lives.")
	flag.IntVar(&config.ReconcileConcurrency, "reconcile-concurrency", configapi.DefaultReconcileConcurrency, "max concurrency for reconciling")
	flag.StringVar(&config.WatchNamespace, "watch-namespace", "", "Namespaces to watch for custom resources, separated by commas (empty: all).")
	flag.StringVar(&logStdoutEncoder, "log-stdout-encoder", "json", "Encoder to use for logging stdout: 'json' or 'console'.")
	flag.StringVar(&config.BatchScheduler, "batch-scheduler", "", "Batch scheduler name, supported values are volcano, yunikorn, kai-scheduler.")
	flag.StringVar(&configFile, "config", "", "Path to structured config file. Flags are ignored if config file is set.")
	flag.BoolVar(&config.UseKubernetesProxy, "use-kubernetes-proxy", false, "Use Kubernetes proxy subresource when connecting to the Ray Head node.")
	flag.StringVar(&featureGates, "feature-gates", "", "A set of key=value pairs that describe feature gates.")
	flag.BoolVar(&config.EnableMetrics, "enable-metrics", false, "Enable the emission of control plane metrics.")
	flag.Float64Var(&qps, "qps", float64(configapi.DefaultQPS), "The QPS value for the client communicating with the Kubernetes API server.")
	flag.IntVar(&burst, "burst", configapi.DefaultBurst, "The maximum burst for throttling requests to the Kubernetes API server.")
	opts := k8szap.Options{TimeEncoder: zapcore.ISO8601TimeEncoder}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	if configFile != "" {
		data, err := os.ReadFile(configFile)
		exitOnError(err, "failed to read config file")
		config = configapi.Configuration{}
		exitOnError(runtime.DecodeInto(serializer.NewCodecFactory(scheme).UniversalDecoder(), data, &config), "failed to decode config file")
		scheme.Default(&config)
	} else {
		config.EnableLeaderElection = &enableLeaderElection
		config.DeleteRayJobAfterJobFinishes = os.Getenv(utils.DELETE_RAYJOB_CR_AFTER_JOB_FINISHES) == "true"
		config.QPS = &qps
		config.Burst = &burst
	}

	encoder, err := newLogEncoder(logStdoutEncoder)
	exitOnError(err, "failed to create log encoder for stdout")
	opts.Encoder = encoder
	logger := k8szap.New(k8szap.UseFlagOptions(&opts))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	exitOnError(configapi.ValidateBatchSchedulerConfig(setupLog, config), "batch scheduler configs validation failed")
	exitOnError(utilfeature.DefaultMutableFeatureGate.Set(featureGates), "Unable to set flag gates for known features")
	features.LogFeatureGates(setupLog)
	if features.Enabled(features.RayServiceIncrementalUpgrade) {
		utilruntime.Must(gwv1.AddToScheme(scheme))
	}

	// As upstream: only the Jobs KubeRay creates (its submitters) are cached.
	createdBy, err := labels.NewRequirement(utils.KubernetesCreatedByLabelKey, selection.Equals, []string{utils.ComponentName})
	exitOnError(err, "unable to create cache selectors")
	options := ctrl.Options{
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{},
			ByObject: map[client.Object]cache.ByObject{
				&batchv1.Job{}: {Label: labels.NewSelector().Add(*createdBy)},
			},
		},
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: config.MetricsAddr},
		HealthProbeBindAddress:  config.ProbeAddr,
		LeaderElection:          *config.EnableLeaderElection,
		LeaderElectionID:        "ray-operator-leader",
		LeaderElectionNamespace: config.LeaderElectionNamespace,
	}
	for _, namespace := range strings.Split(config.WatchNamespace, ",") {
		if namespace != "" {
			options.Cache.DefaultNamespaces[namespace] = cache.Config{}
		}
	}

	restConfig := ctrl.GetConfigOrDie()
	restConfig.UserAgent = fmt.Sprintf("kuberay-operator/%s", utils.KUBERAY_VERSION)
	restConfig.QPS = float32(*config.QPS)
	restConfig.Burst = *config.Burst
	mgr, err := ctrl.NewManager(restConfig, options)
	exitOnError(err, "unable to start manager")
	ctx := ctrl.SetupSignalHandler()

	var rayClusterMetrics *metrics.RayClusterMetricsManager
	var rayJobMetrics *metrics.RayJobMetricsManager
	if config.EnableMetrics {
		rayClusterMetrics = metrics.NewRayClusterMetricsManager(ctx, mgr.GetClient())
		rayJobMetrics = metrics.NewRayJobMetricsManager(ctx, mgr.GetClient())
		rayServiceMetrics := metrics.NewRayServiceMetricsManager(ctx, mgr.GetClient())
		ctrlmetrics.Registry.MustRegister(rayClusterMetrics, rayJobMetrics, rayServiceMetrics)
	}
	batchSchedulers, err := batchscheduler.NewSchedulerManager(ctx, config, restConfig, mgr.GetClient())
	exitOnError(err, "unable to create batch scheduler manager")
	batchSchedulers.AddToScheme(mgr.GetScheme())

	exitOnError(ray.NewReconciler(ctx, mgr, ray.RayClusterReconcilerOptions{
		HeadSidecarContainers:    config.HeadSidecarContainers,
		WorkerSidecarContainers:  config.WorkerSidecarContainers,
		IsOpenShift:              utils.GetClusterType(),
		RayClusterMetricsManager: rayClusterMetrics,
		BatchSchedulerManager:    batchSchedulers,
		DefaultContainerEnvs:     config.DefaultContainerEnvs,
	}).SetupWithManager(mgr, config.ReconcileConcurrency), "unable to create controller", "controller", "RayCluster")
	exitOnError(ray.NewRayServiceReconciler(ctx, mgr, config).SetupWithManager(mgr, config.ReconcileConcurrency),
		"unable to create controller", "controller", "RayService")
	// The one change: the RayJob reconciler's Ray dashboard is the stand-in.
	exitOnError(ray.NewRayJobReconciler(ctx, mgr, ray.RayJobReconcilerOptions{
		RayJobMetricsManager:  rayJobMetrics,
		BatchSchedulerManager: batchSchedulers,
	}, standInDashboardProvider{config}).SetupWithManager(mgr, config.ReconcileConcurrency),
		"unable to create controller", "controller", "RayJob")
	if os.Getenv("ENABLE_WEBHOOKS") == "true" {
		exitOnError(webhooks.SetupRayClusterWebhookWithManager(mgr), "unable to create webhook", "webhook", "RayCluster")
	}

	exitOnError(mgr.AddHealthzCheck("healthz", healthz.Ping), "unable to set up health check")
	exitOnError(mgr.AddReadyzCheck("readyz", healthz.Ping), "unable to set up ready check")
	setupLog.Info("starting manager (RayJob's Ray dashboard: the stand-in that follows the submitter Job)")
	exitOnError(mgr.Start(ctx), "problem running manager")
}

func exitOnError(err error, msg string, keysAndValues ...interface{}) {
	if err != nil {
		setupLog.Error(err, msg, keysAndValues...)
		os.Exit(1)
	}
}

// newLogEncoder is upstream's: 'json' (the default) or 'console'.
func newLogEncoder(encoderType string) (zapcore.Encoder, error) {
	pe := zap.NewProductionEncoderConfig()
	pe.EncodeTime = zapcore.ISO8601TimeEncoder
	switch encoderType {
	case "json", "":
		return zapcore.NewJSONEncoder(pe), nil
	case "console":
		return zapcore.NewConsoleEncoder(pe), nil
	}
	return nil, fmt.Errorf("invalid encoder %q (must be 'json' or 'console')", encoderType)
}
