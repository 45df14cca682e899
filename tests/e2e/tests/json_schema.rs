#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Agents written as JSON Schema, run end to end: the emulator serves the user's schema files
//! (`tests/json-schema/`) and the bindings generated from the same files decode its answers.

use agents_runtime::ApiVersion;
use agents_test_support::workspace_root;
use agents_tests_e2e::{client_for, start};
use agents_tests_generated::json_schema::{Review, ReviewParams, ShopV2, ShopV2Params};

#[tokio::test]
async fn a_schema_the_user_wrote_runs_typed_over_both_versions() {
    let dir = workspace_root().join("tests").join("json-schema");
    let e = start(
        agents_emulator::Emulator::builder()
            .rate_limit(None)
            .schema_dir(dir),
    )
    .await;
    for version in [ApiVersion::V1, ApiVersion::V2] {
        let c = client_for(&e).api_version(version).build().unwrap();
        let run = c
            .run(ReviewParams::new("https://shop.example/reviews/1").max_reviews(20))
            .await
            .unwrap();
        let review: &Review = run.record().unwrap();
        let stars = review.stars.unwrap();
        assert!((1..=5).contains(&stars), "{stars}");
        assert!(review.headline.is_some() && review.photos.is_some());
        let refused = c.run(ReviewParams::new("nope")).await.unwrap_err();
        assert!(
            refused.to_string().contains("minimum length 8"),
            "{refused}"
        );

        let run = c
            .run(ShopV2Params::new("AB-123").zip_code("10115"))
            .await
            .unwrap();
        let shop: &ShopV2 = run.record().unwrap();
        assert!(shop.title.is_some() && shop.availability.is_some());
        // Enums sampled from the schema's own values decode as listed variants.
        assert!(!matches!(
            shop.availability,
            Some(agents_tests_generated::json_schema::ShopV2Availability::Unknown(_))
        ));
    }
}
