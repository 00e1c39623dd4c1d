"""Who may call the app routes: a Cognito user pool (created here, or imported by ARN)."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cognito as cognito
from constructs import Construct

from infra.config import Config


class Auth(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, config: Config) -> None:
        super().__init__(scope, construct_id)
        self.user_pool_client: cognito.UserPoolClient | None = None
        if config.user_pool_arn:
            self.user_pool: cognito.IUserPool = cognito.UserPool.from_user_pool_arn(
                self, "UserPool", config.user_pool_arn
            )
            return

        # Health data: TOTP MFA required (no SMS: no SMS role, no SMS-pumping fraud), Plus tier
        # threat protection blocks compromised credentials and risky sign-ins.
        pool = cognito.UserPool(
            self,
            "UserPool",
            self_sign_up_enabled=True,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            keep_original=cognito.KeepOriginalAttrs(email=True),
            standard_attributes=cognito.StandardAttributes(
                email=cognito.StandardAttribute(required=True, mutable=True)
            ),
            password_policy=cognito.PasswordPolicy(
                min_length=12,
                require_lowercase=True,
                require_uppercase=True,
                require_digits=True,
                require_symbols=True,
                temp_password_validity=Duration.days(3),
            ),
            mfa=cognito.Mfa.REQUIRED,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.PLUS,
            standard_threat_protection_mode=cognito.StandardThreatProtectionMode.FULL_FUNCTION,
            deletion_protection=config.deletion_protection,
            removal_policy=config.removal_policy,
        )
        self.user_pool = pool
        # The mobile app: a public client (no secret), SRP sign-in, no OAuth/hosted UI.
        self.user_pool_client = pool.add_client(
            "MobileApp",
            generate_secret=False,
            auth_flows=cognito.AuthFlow(user_srp=True),
            disable_o_auth=True,
            prevent_user_existence_errors=True,
            enable_token_revocation=True,
            id_token_validity=Duration.minutes(60),
            access_token_validity=Duration.minutes(60),
            refresh_token_validity=Duration.days(30),
        )
