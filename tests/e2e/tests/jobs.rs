#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Jobs in both versions of the interface: created with inline inputs, run on demand and on
//! their schedule (the emulator's fast clock runs schedules 600× faster), followed to their end,
//! cancelled, changed and deleted; their artifacts listed, previewed and downloaded in each
//! format, and the Parquet read back with the parquet crate.

use std::time::Duration;

use agents_runtime::catalog::RetailerAPdp;
use agents_runtime::client::jobs::{
    ArtifactFormat, JobDestination, JobInputs, JobRequest, JobSchedule, JobStatus, JobUpdate,
    TriggeredBy,
};
use agents_runtime::{ApiVersion, Client, Error, WaitOptions};
use agents_tests_e2e::{client_for, emulator};
use futures::TryStreamExt;
use serde_json::json;

fn clients(e: &agents_emulator::EmulatorHandle) -> [Client; 2] {
    ApiVersion::ALL.map(|v| client_for(e).api_version(v).build().unwrap())
}

fn fast() -> WaitOptions {
    WaitOptions::TASK.intervals(Duration::from_millis(20), Duration::from_millis(50))
}

fn inputs() -> JobInputs {
    JobInputs::inline([
        json!({"asin": "B1"}),
        json!({"asin": "B2", "zip_code": "10001"}),
        json!({"asin": ""}),
        json!({"asin": "B3"}),
    ])
    .unwrap()
}

#[tokio::test]
async fn a_triggered_run_writes_artifacts_in_each_format() {
    let e = emulator().await;
    for c in clients(&e) {
        for format in [
            ArtifactFormat::Jsonl,
            ArtifactFormat::Csv,
            ArtifactFormat::Parquet,
        ] {
            let job = c
                .create_job(
                    JobRequest::new(format!("prices-{}", format.as_str()), "retailer_a_pdp")
                        .inputs(inputs())
                        .destination(JobDestination::file("prices/", format.clone())),
                )
                .await
                .unwrap();
            assert_eq!(job.template.as_deref(), Some("retailer_a_pdp"));
            let run = c
                .trigger_job(&job.id, None)
                .await
                .unwrap()
                .with_wait(fast())
                .wait()
                .await
                .unwrap();
            // One input breaks a rule: the run ends with a warning, and says which.
            assert_eq!(run.status, JobStatus::Warning, "{run:?}");
            assert_eq!(run.triggered_by, Some(TriggeredBy::Manual));
            assert_eq!(run.input_count, Some(4));
            assert_eq!(run.result_count, Some(3));
            assert!((run.match_rate().unwrap() - 0.75).abs() < 1e-9);
            assert!(run.error_message().unwrap().contains("1 of 4"), "{run:?}");

            let artifacts = c.artifacts(&run.id).await.unwrap();
            assert_eq!(artifacts.len(), 2, "{artifacts:?}");
            let results = &artifacts[0];
            assert_eq!(results.kind, format.as_str());
            assert_eq!(c.artifact(&run.id, &results.id).await.unwrap(), *results);
            let preview = c.artifact_preview(&run.id, &results.id).await.unwrap();
            assert_eq!(preview.row_count, 3);
            // The columns: the input's position, then the record's fields in its schema's order.
            let record = c.agent("retailer_a_pdp").await.unwrap();
            let declared: Vec<&String> = record.output_schema.as_ref().unwrap().keys().collect();
            let columns = &preview.columns;
            assert_eq!(columns[0], "_input_index");
            assert!(columns.len() > 50, "{columns:?}");
            let in_schema: Vec<&String> = declared
                .iter()
                .copied()
                .filter(|f| columns.contains(f))
                .collect();
            assert_eq!(columns[1..].iter().collect::<Vec<_>>(), in_schema);
            let bytes = c.download_artifact(&run.id, &results.id).await.unwrap();
            // Read as it arrives, the same bytes.
            let chunks: Vec<bytes::Bytes> = c
                .artifact_chunks(&run.id, &results.id)
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap();
            assert_eq!(chunks.concat(), bytes.to_vec());
            match format {
                ArtifactFormat::Jsonl => {
                    let lines: Vec<serde_json::Value> = bytes
                        .split(|b| *b == b'\n')
                        .filter(|l| !l.is_empty())
                        .map(|l| serde_json::from_slice(l).unwrap())
                        .collect();
                    assert_eq!(lines.len(), 3);
                    assert_eq!(lines[1]["_input_index"], 1);
                }
                ArtifactFormat::Csv => {
                    let text = String::from_utf8(bytes.to_vec()).unwrap();
                    assert_eq!(text.lines().count(), 4, "a header and three rows");
                    assert_eq!(text.lines().next().unwrap(), columns.join(","));
                }
                _ => {
                    let read =
                        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                            bytes.clone(),
                        )
                        .unwrap();
                    let names: Vec<String> = read
                        .schema()
                        .fields()
                        .iter()
                        .map(|f| f.name().clone())
                        .collect();
                    assert_eq!(&names, columns);
                    let reader = read.build().unwrap();
                    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
                    assert_eq!(rows, 3);
                    // And typed: the artifact's rows as the template's records.
                    let records: Vec<RetailerAPdp> =
                        agents_runtime::columnar::ParquetReader::new(bytes)
                            .unwrap()
                            .map(|r| r.unwrap().record)
                            .collect();
                    assert_eq!(records.len(), 3);
                    assert!(
                        records.iter().all(|r| r.product_title.is_some()),
                        "{records:?}"
                    );
                    assert!(
                        records.iter().all(|r| r.mismatches.is_empty()),
                        "{records:?}"
                    );
                }
            }
            let errors = c
                .download_artifact(&run.id, &artifacts[1].id)
                .await
                .unwrap();
            let failed: serde_json::Value =
                serde_json::from_slice(errors.split(|b| *b == b'\n').next().unwrap()).unwrap();
            assert_eq!(failed["input"]["asin"], "");
        }
    }
}

/// A download URL works for 15 minutes of the emulator's clock, which the test moves instead of
/// waiting.
#[tokio::test]
async fn a_download_url_expires_on_the_emulators_clock() {
    let e = emulator().await;
    let c = client_for(&e).api_version(ApiVersion::V2).build().unwrap();
    let job = c
        .create_job(JobRequest::new("expiring", "retailer_a_pdp").inputs(inputs()))
        .await
        .unwrap();
    let handle = c.trigger_job(&job.id, None).await.unwrap();
    e.advance(Duration::from_secs(60));
    let run = handle.with_wait(fast()).wait().await.unwrap();
    let link = c.artifact_download_url(&run.id, "1").await.unwrap();
    assert!(reqwest::get(&link.url).await.unwrap().status().is_success());
    e.advance(Duration::from_secs(15 * 60));
    let expired = reqwest::get(&link.url).await.unwrap();
    assert_eq!(expired.status(), reqwest::StatusCode::FORBIDDEN);
    let body: serde_json::Value = expired.json().await.unwrap();
    assert_eq!(body["error"]["code"], "EXPIRED", "{body}");
}

#[tokio::test]
async fn schedules_run_jobs_and_runs_can_be_cancelled() {
    let e = emulator().await;
    for c in clients(&e) {
        // Every minute on the schedule clock: every 100 ms here.
        let job = c
            .create_job(
                JobRequest::new("minutely", "retailer_a_pdp")
                    .inputs(JobInputs::inline([json!({"asin": "B1"})]).unwrap())
                    .schedule("* * * * *", true),
            )
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(450)).await;
        let runs: Vec<_> = c.job_runs(&job.id).try_collect().await.unwrap();
        assert!(runs.len() >= 3, "{} runs", runs.len());
        assert!(
            runs.iter()
                .all(|r| r.triggered_by == Some(TriggeredBy::Schedule))
        );
        let done = c
            .job_run_handle(&runs.last().unwrap().id)
            .with_wait(fast())
            .wait()
            .await
            .unwrap();
        assert_eq!(done.status, JobStatus::Success);
        let job_now = c.job(&job.id).await.unwrap();
        assert!(job_now.last_run_at.is_some());

        // Disabled, the schedule makes no more runs.
        let off = c
            .update_job(
                &job.id,
                JobUpdate::new().schedule(JobSchedule {
                    cron: "* * * * *".into(),
                    enabled: false,
                }),
            )
            .await
            .unwrap();
        assert!(!off.schedule.unwrap().enabled);
        let before = c
            .job_runs(&job.id)
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .len();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let after = c
            .job_runs(&job.id)
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .len();
        assert_eq!(before, after);

        // A bad cron expression is refused, naming the field.
        let err = c
            .update_job(
                &job.id,
                JobUpdate::new().schedule(JobSchedule {
                    cron: "every day".into(),
                    enabled: true,
                }),
            )
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Unprocessable(_)), "{err}");
        assert!(err.to_string().contains("schedule.cron"), "{err}");
        // So is one that parses but never fires (once, it made every later look at the jobs
        // search to the year 5000 under the jobs lock).
        for never in [",,, * * * *", "0 0 30 2 *", "0 0 31 4,6,9,11 *"] {
            let err = c
                .update_job(
                    &job.id,
                    JobUpdate::new().schedule(JobSchedule {
                        cron: never.into(),
                        enabled: true,
                    }),
                )
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Unprocessable(_)), "{never}: {err}");
            assert!(err.to_string().contains("never fires"), "{never}: {err}");
        }

        // A run cancelled before it ends stays cancelled; cancelling an ended one is refused.
        let handle = c.trigger_job(&job.id, None).await.unwrap();
        assert_eq!(
            c.cancel_job_run(handle.id()).await.unwrap(),
            JobStatus::Cancelled
        );
        let cancelled = handle.with_wait(fast()).wait().await.unwrap();
        assert_eq!(cancelled.status, JobStatus::Cancelled);
        assert!(c.artifacts(&cancelled.id).await.unwrap().is_empty());
        let err = c.cancel_job_run(&cancelled.id).await.unwrap_err();
        assert_eq!(err.status(), Some(409), "{err}");

        c.delete_job(&job.id).await.unwrap();
        assert!(matches!(
            c.job(&job.id).await.unwrap_err(),
            Error::NotFound(_)
        ));
    }
}

#[tokio::test]
async fn jobs_list_page_by_page_and_refuse_what_cannot_run() {
    let e = emulator().await;
    for c in clients(&e) {
        for i in 0..55 {
            c.create_job(JobRequest::new(format!("job-{i}"), "retailer_a_pdp"))
                .await
                .unwrap();
        }
        let all: Vec<_> = c.jobs().try_collect().await.unwrap();
        assert_eq!(all.len(), 55, "{:?}", c.api_version());
        // The next version's jobs are the same account's: delete them for the next round.
        for j in &all {
            c.delete_job(&j.id).await.unwrap();
        }
        let err = c
            .create_job(JobRequest::new("x", "retailer_a_pdq"))
            .await
            .unwrap_err();
        assert!(err.to_string().contains("retailer_a_pdp"), "{err}");
        // A job without inputs runs and fails, saying why.
        let job = c
            .create_job(JobRequest::new("empty", "retailer_a_pdp"))
            .await
            .unwrap();
        let run = c
            .trigger_job(&job.id, None)
            .await
            .unwrap()
            .with_wait(fast())
            .wait()
            .await
            .unwrap();
        assert_eq!(run.status, JobStatus::Failed);
        assert!(
            run.error_message().unwrap().contains("no inputs"),
            "{run:?}"
        );
        c.delete_job(&job.id).await.unwrap();
    }
    // /v2 triggers over inputs sent with the trigger; /v1 cannot, and says so before sending.
    let [v1, v2] = clients(&e);
    let job = v2
        .create_job(JobRequest::new("adhoc", "retailer_a_pdp"))
        .await
        .unwrap();
    let run = v2
        .trigger_job(
            &job.id,
            Some(JobInputs::inline([json!({"asin": "B9"})]).unwrap()),
        )
        .await
        .unwrap()
        .with_wait(fast())
        .wait()
        .await
        .unwrap();
    assert_eq!(run.status, JobStatus::Success);
    let err = v1
        .trigger_job(
            &job.id,
            Some(JobInputs::inline([json!({"asin": "B9"})]).unwrap()),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "inputs",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn typed_job_inputs_are_checked_before_sending_and_name_the_template_from_the_type() {
    use agents_runtime::catalog::RetailerAPdpParams;
    // An empty asin breaks the agent's input rule (minimum length 1); every bad item is listed.
    let bad = JobInputs::params([
        RetailerAPdpParams::new("B08N5WRWNW"),
        RetailerAPdpParams::new(""),
        RetailerAPdpParams::new("B2"),
        RetailerAPdpParams::new(""),
    ])
    .unwrap_err();
    match &bad {
        Error::InvalidItems(items) => {
            assert_eq!(items.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [1, 3]);
        }
        other => panic!("{other:?}"),
    }
    assert!(bad.to_string().contains("asin"), "{bad}");
    // Good items go as the untyped form would send them.
    let typed = JobInputs::params([RetailerAPdpParams::new("B08N5WRWNW")]).unwrap();
    assert_eq!(
        typed,
        JobInputs::inline([json!({"asin": "B08N5WRWNW"})]).unwrap()
    );
    assert_eq!(
        JobRequest::of::<RetailerAPdp>("nightly"),
        JobRequest::new("nightly", "retailer_a_pdp")
    );
}
