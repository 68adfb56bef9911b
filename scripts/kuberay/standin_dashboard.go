package main

// A STAND-IN for the Ray dashboard's job API, which KubeRay's RayJob reconciler polls for the
// status of the Ray job a RayJob runs. Berth's harness and local mode run pods on KWOK, which runs
// no container: there is no Ray head, so no dashboard, and without an answer KubeRay never sees a
// Ray job end (it marks a RayJob whose submitter succeeded Failed after 30 s). In K8sJobMode,
// KubeRay's default, the Ray job is submitted by the RayJob's submitter Job running
// `ray job submit`, which blocks until the Ray job ends and exits with its status: the stand-in
// reports that Ray job as the submitter Job shows it (PENDING until a pod of it is active,
// RUNNING while one is, SUCCEEDED once the Job is Complete, FAILED once it is Failed: the Job's
// final conditions, not the FailureTarget or SuccessCriteriaMet that may precede them, so that
// what KubeRay sees does not depend on when it reconciles). KubeRay's own reconciler then decides,
// with its own rules, when the RayJob is Complete or Failed; a Failed submitter makes it Failed
// (SubmissionFailed) before it asks the dashboard.
//
// Only GetJobInfo answers; nothing here talks to Ray. A RayJob of another submission mode
// (HTTPMode, SidecarMode, InteractiveMode) has no submitter Job to follow: the stand-in answers
// with an error, and KubeRay keeps such a RayJob Running (docs/ray.md).

import (
	"context"
	"fmt"
	"net/http"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/common"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils/dashboardclient"
	utiltypes "github.com/ray-project/kuberay/ray-operator/controllers/ray/utils/types"
)

// standInDashboardProvider is the utils.ClientProvider given to the RayJob reconciler: its
// dashboard clients are standInDashboard; the HTTP proxy clients (RayService only) stay upstream's.
type standInDashboardProvider struct {
	upstream utils.ClientProvider
}

func (p standInDashboardProvider) GetDashboardClient(mgr manager.Manager) func(*rayv1.RayCluster, string) (dashboardclient.RayDashboardClientInterface, error) {
	// The manager's cached client: it holds the RayJobs and, as upstream configures its cache, the
	// Jobs KubeRay created, the same view the reconciler reads the submitter Job from.
	reader := mgr.GetClient()
	return func(rayCluster *rayv1.RayCluster, _ string) (dashboardclient.RayDashboardClientInterface, error) {
		return &standInDashboard{reader: reader, namespace: rayCluster.Namespace}, nil
	}
}

func (p standInDashboardProvider) GetHttpProxyClient(mgr manager.Manager) func(hostIp, podNamespace, podName string, port int) utils.RayHttpProxyClientInterface {
	return p.upstream.GetHttpProxyClient(mgr)
}

// standInDashboard answers for the Ray cluster of one namespace: the Ray job with a given ID is
// the one of the RayJob whose status carries that ID.
type standInDashboard struct {
	reader    client.Reader
	namespace string
}

var _ dashboardclient.RayDashboardClientInterface = &standInDashboard{}

func (d *standInDashboard) InitClient(*http.Client, string) {}

// GetJobInfo reports the Ray job as its submitter Job shows it. As the real client does for a job
// the dashboard does not know, a RayJob or submitter Job that is not there is a BadRequest.
func (d *standInDashboard) GetJobInfo(ctx context.Context, jobID string) (*utiltypes.RayJobInfo, error) {
	rayJob, err := d.rayJobOf(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if rayJob.Spec.SubmissionMode != rayv1.K8sJobMode {
		return nil, fmt.Errorf("the stand-in Ray dashboard follows a submitter Job, and RayJob %s/%s (submissionMode %s) has none",
			rayJob.Namespace, rayJob.Name, rayJob.Spec.SubmissionMode)
	}
	submitter := &batchv1.Job{}
	if err := d.reader.Get(ctx, common.RayJobK8sJobNamespacedName(rayJob), submitter); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, apierrors.NewBadRequest("Job " + jobID + " does not exist on the cluster (no submitter Job yet)")
		}
		return nil, err
	}
	return jobInfo(jobID, rayJob.Spec.Entrypoint, submitter), nil
}

// jobInfo is what `ray job submit` in the submitter's pod would have seen of the Ray job.
func jobInfo(jobID, entrypoint string, submitter *batchv1.Job) *utiltypes.RayJobInfo {
	info := &utiltypes.RayJobInfo{JobId: jobID, SubmissionId: jobID, Entrypoint: entrypoint}
	if submitter.Status.StartTime != nil {
		info.StartTime = uint64(submitter.Status.StartTime.UnixMilli())
	}
	for _, c := range submitter.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			info.JobStatus = rayv1.JobStatusSucceeded
			info.Message = "Job finished successfully (stand-in Ray dashboard: the submitter Job " + submitter.Name + " succeeded)."
			info.EndTime = uint64(c.LastTransitionTime.UnixMilli())
			return info
		case batchv1.JobFailed:
			info.JobStatus = rayv1.JobStatusFailed
			info.Message = "Job failed (stand-in Ray dashboard: the submitter Job " + submitter.Name + " failed: " + c.Reason + ")."
			info.EndTime = uint64(c.LastTransitionTime.UnixMilli())
			return info
		}
	}
	if submitter.Status.Active > 0 {
		info.JobStatus = rayv1.JobStatusRunning
		info.Message = "Job is currently running (stand-in Ray dashboard: the submitter Job " + submitter.Name + " runs)."
	} else {
		info.JobStatus = rayv1.JobStatusPending
		info.Message = "Job has not started yet (stand-in Ray dashboard: the submitter Job " + submitter.Name + " has no pod running)."
	}
	return info
}

// rayJobOf finds the RayJob of this namespace whose Ray job has ID jobID.
func (d *standInDashboard) rayJobOf(ctx context.Context, jobID string) (*rayv1.RayJob, error) {
	var rayJobs rayv1.RayJobList
	if err := d.reader.List(ctx, &rayJobs, client.InNamespace(d.namespace)); err != nil {
		return nil, err
	}
	for i := range rayJobs.Items {
		if jobID != "" && rayJobs.Items[i].Status.JobId == jobID {
			return &rayJobs.Items[i], nil
		}
	}
	return nil, apierrors.NewBadRequest("Job " + jobID + " does not exist on the cluster")
}

// StopJob and DeleteJob have nothing to stop: no Ray runs, and the submitter Job is KubeRay's to delete.
func (d *standInDashboard) StopJob(context.Context, string) error   { return nil }
func (d *standInDashboard) DeleteJob(context.Context, string) error { return nil }

// What follows is not reached for a RayJob in K8sJobMode (nor by Berth's RayJobs); it is refused
// rather than pretended.
var errNotServed = fmt.Errorf("not served by the stand-in Ray dashboard, which reports the Ray jobs of K8sJobMode submitters only")

func (d *standInDashboard) GetJobLog(context.Context, string) (*string, error) {
	return nil, errNotServed
}

func (d *standInDashboard) ListJobs(context.Context) (*[]utiltypes.RayJobInfo, error) {
	return nil, errNotServed
}

func (d *standInDashboard) SubmitJob(context.Context, *rayv1.RayJob) (string, error) {
	return "", errNotServed
}

func (d *standInDashboard) SubmitJobReq(context.Context, *utiltypes.RayJobRequest) (string, error) {
	return "", errNotServed
}

func (d *standInDashboard) UpdateDeployments(context.Context, []byte) error { return errNotServed }

func (d *standInDashboard) GetServeDetails(context.Context) (*utiltypes.ServeDetails, error) {
	return nil, errNotServed
}

func (d *standInDashboard) GetMultiApplicationStatus(context.Context) (map[string]*utiltypes.ServeApplicationStatus, error) {
	return nil, errNotServed
}
